/* global history, navigator, URL, URLSearchParams */
/*
 * The share page (/share/{grantId}#token=<secret>). The secret lives in the URL fragment, which
 * browsers never send to the server; the page reads it, drops it from the address bar and
 * history at once, and only ever sends it in the body of preview and accept. After accepting,
 * the recipient cookie (HttpOnly, scoped to this grant's API path) carries the session.
 */
'use strict';

(function sharePage() {
  var TEXTS = {
    ar: {
      title: 'مستند مشترك',
      kindLabel: 'نوع المستند',
      companyLabel: 'شركة النقل',
      acceptHint: 'يمكن فتح هذا الرابط مرة واحدة فقط. بعد القبول يبقى المستند متاحاً لمدة أقصاها 30 دقيقة.',
      accept: 'قبول وعرض المستند',
      download: 'تنزيل PDF',
      loading: 'جارٍ التحميل…',
      ready: 'المستند جاهز.',
      until: 'متاح حتى ',
      kinds: {
        BOOKING_CONFIRMATION: 'تأكيد الحجز',
        INVOICE: 'فاتورة',
        CANCELLATION_CONFIRMATION: 'تأكيد الإلغاء',
        PAYMENT_RECEIPT: 'إيصال دفع',
      },
      errors: {
        SHARE_NOT_FOUND: 'هذا الرابط غير صالح.',
        SHARE_EXPIRED: 'انتهت صلاحية هذا الرابط.',
        SHARE_REVOKED: 'ألغى صاحب المستند هذه المشاركة.',
        SHARE_ALREADY_ACCEPTED: 'استُخدم هذا الرابط من قبل.',
        SHARE_SESSION_REQUIRED: 'افتح رابط المشاركة الكامل لعرض المستند.',
        SHARE_SESSION_EXPIRED: 'انتهت جلسة عرض المستند.',
        RATE_LIMITED: 'طلبات كثيرة؛ حاول بعد قليل.',
        default: 'تعذر عرض المستند. حاول لاحقاً.',
      },
    },
    en: {
      title: 'Shared document',
      kindLabel: 'Document',
      companyLabel: 'Operator',
      acceptHint:
        'This link opens once. After you accept, the document stays available for at most 30 minutes.',
      accept: 'Accept and show the document',
      download: 'Download PDF',
      loading: 'Loading…',
      ready: 'The document is ready.',
      until: 'Available until ',
      kinds: {
        BOOKING_CONFIRMATION: 'Booking confirmation',
        INVOICE: 'Invoice',
        CANCELLATION_CONFIRMATION: 'Cancellation confirmation',
        PAYMENT_RECEIPT: 'Payment receipt',
      },
      errors: {
        SHARE_NOT_FOUND: 'This link is not valid.',
        SHARE_EXPIRED: 'This link has expired.',
        SHARE_REVOKED: 'The owner revoked this share.',
        SHARE_ALREADY_ACCEPTED: 'This link was already used.',
        SHARE_SESSION_REQUIRED: 'Open the full share link to see the document.',
        SHARE_SESSION_EXPIRED: 'The viewing session has ended.',
        RATE_LIMITED: 'Too many requests; try again shortly.',
        default: 'The document could not be shown. Try again later.',
      },
    },
  };

  // The API answers with lower-case grant ids; the link may carry it in capitals.
  var grantId = (location.pathname.split('/').filter(Boolean)[1] || '').toLowerCase();
  var secret = new URLSearchParams(location.hash.slice(1)).get('token');
  // Drop the fragment before anything else happens: it must not stay in the address bar or history.
  if (location.hash) history.replaceState(null, '', location.pathname + location.search);

  var lang = (navigator.language || '').toLowerCase().indexOf('en') === 0 ? 'en' : 'ar';
  var state = { preview: null, session: null, status: null, error: null, objectUrl: null };

  function byId(id) {
    return document.getElementById(id);
  }

  function t() {
    return TEXTS[lang];
  }

  function api(path, init) {
    var options = Object.assign({ credentials: 'same-origin', cache: 'no-store' }, init || {});
    return fetch('/api/document-shares/' + encodeURIComponent(grantId) + path, options);
  }

  function postJson(path, body) {
    return api(path, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
  }

  async function failure(response) {
    try {
      var body = await response.json();
      return body.errorCode || 'default';
    } catch {
      return 'default';
    }
  }

  function render() {
    var texts = t();
    document.documentElement.lang = lang;
    document.documentElement.dir = lang === 'ar' ? 'rtl' : 'ltr';
    document.title = texts.title;
    document.querySelectorAll('[data-text]').forEach(function (node) {
      node.textContent = texts[node.getAttribute('data-text')];
    });
    var status = byId('status');
    status.className = state.error ? 'error' : '';
    status.textContent = state.error
      ? texts.errors[state.error] || texts.errors.default
      : state.status
        ? texts[state.status]
        : '';
    byId('preview').hidden = !state.preview || Boolean(state.session) || Boolean(state.error);
    if (state.preview) {
      byId('kind').textContent = texts.kinds[state.preview.documentKind] || state.preview.documentKind;
      byId('company').textContent =
        lang === 'ar' ? state.preview.company.name_ar : state.preview.company.name_en;
    }
    byId('document').hidden = !state.session || Boolean(state.error);
    if (state.session) {
      byId('expiry').textContent =
        texts.until + new Date(state.session.expiresAt).toLocaleTimeString(lang === 'ar' ? 'ar-SY' : 'en-GB');
    }
  }

  function fail(code) {
    state.error = code;
    state.status = null;
    if (state.objectUrl) URL.revokeObjectURL(state.objectUrl);
    state.objectUrl = null;
    byId('viewer').removeAttribute('src');
    render();
  }

  async function fetchPdf(action) {
    var response = await api('/document?action=' + action + '&locale=' + lang);
    if (!response.ok) throw new Error(await failure(response));
    return response.blob();
  }

  async function showDocument() {
    state.status = 'loading';
    render();
    try {
      var blob = await fetchPdf('view');
      if (state.objectUrl) URL.revokeObjectURL(state.objectUrl);
      state.objectUrl = URL.createObjectURL(blob);
      byId('viewer').src = state.objectUrl;
      byId('download').hidden = state.session.presentation !== 'DOWNLOAD';
      state.status = 'ready';
      render();
    } catch (error) {
      fail(error.message);
    }
  }

  async function download(event) {
    event.preventDefault();
    try {
      var blob = await fetchPdf('download');
      var link = document.createElement('a');
      link.href = URL.createObjectURL(blob);
      link.download = 'document-' + lang + '.pdf';
      link.click();
      URL.revokeObjectURL(link.href);
    } catch (error) {
      fail(error.message);
    }
  }

  async function accept() {
    byId('accept').disabled = true;
    var response = await postJson('/accept', { secret: secret });
    secret = null;
    if (!response.ok) return fail(await failure(response));
    state.session = (await response.json()).data;
    await showDocument();
  }

  async function start() {
    render();
    if (secret) {
      var response = await postJson('/preview', { secret: secret });
      if (!response.ok) return fail(await failure(response));
      state.preview = (await response.json()).data;
      render();
      return;
    }
    // No secret: a reload after accepting; the recipient cookie may still hold a session.
    var session = await api('/session');
    if (!session.ok) return fail(await failure(session));
    state.session = (await session.json()).data;
    await showDocument();
  }

  document.querySelectorAll('[data-lang]').forEach(function (button) {
    button.addEventListener('click', function () {
      lang = button.getAttribute('data-lang');
      render();
      if (state.session && !state.error) showDocument();
    });
  });
  byId('accept').addEventListener('click', accept);
  byId('download').addEventListener('click', download);
  start().catch(function () {
    fail('default');
  });
})();
