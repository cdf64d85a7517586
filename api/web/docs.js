// Renders /api/openapi.json as a browsable reference: operations grouped by tag, each with its
// access rule, parameters, request body and responses shown as readable schema tables.
(function () {
  'use strict';

  const HTTP_METHODS = ['get', 'post', 'put', 'patch', 'delete', 'options', 'head'];

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    Object.assign(node, attrs || {});
    for (const child of children) if (child !== null && child !== undefined) node.append(child);
    return node;
  }

  function resolve(spec, schema) {
    if (!schema || typeof schema.$ref !== 'string' || !schema.$ref.startsWith('#/'))
      return { schema, name: null };
    const parts = schema.$ref
      .slice(2)
      .split('/')
      .map((part) => decodeURIComponent(part).replace(/~1/g, '/').replace(/~0/g, '~'));
    const target = parts.reduce((node, key) => (node ? node[key] : undefined), spec);
    return { schema: target || {}, name: parts[parts.length - 1] };
  }

  /** A short type label: string (uuid), array of Trip, "A" | "B", integer | null. */
  function typeLabel(spec, raw) {
    const { schema, name } = resolve(spec, raw);
    if (name) return name;
    if (!schema || Object.keys(schema).length === 0) return 'any';
    if ('const' in schema) return JSON.stringify(schema.const);
    if (Array.isArray(schema.enum)) return schema.enum.map((value) => JSON.stringify(value)).join(' | ');
    const union = schema.anyOf || schema.oneOf;
    if (Array.isArray(union)) return union.map((member) => typeLabel(spec, member)).join(' | ');
    const types = Array.isArray(schema.type)
      ? schema.type
      : [schema.type || (schema.properties ? 'object' : 'any')];
    return types
      .map((type) => {
        if (type === 'array') return 'array of ' + typeLabel(spec, schema.items || {});
        return schema.format && type !== 'null' ? type + ' (' + schema.format + ')' : type;
      })
      .join(' | ');
  }

  function constraints(schema) {
    const facts = [];
    const add = (label, value) =>
      value !== undefined &&
      facts.push(label + ' ' + (typeof value === 'string' ? value : JSON.stringify(value)));
    // zod marks every integer with the safe-integer range; that says nothing to a reader.
    if (schema.minimum !== -Number.MAX_SAFE_INTEGER) add('min', schema.minimum);
    if (schema.maximum !== Number.MAX_SAFE_INTEGER) add('max', schema.maximum);
    add('min length', schema.minLength);
    add('max length', schema.maxLength);
    add('min items', schema.minItems);
    add('max items', schema.maxItems);
    add('pattern', schema.pattern);
    add('default', schema.default);
    if (Array.isArray(schema.examples) && schema.examples.length) add('e.g.', schema.examples[0]);
    return facts.map((fact) => el('span', { className: 'constraint', textContent: fact }));
  }

  /** The object whose properties a schema lists, looking through references, arrays and nullable unions. */
  function fieldsOf(spec, raw) {
    let { schema } = resolve(spec, raw);
    if (schema && schema.type === 'array' && schema.items) schema = resolve(spec, schema.items).schema;
    const union = schema && (schema.anyOf || schema.oneOf);
    if (Array.isArray(union)) {
      const objects = union
        .map((member) => resolve(spec, member).schema)
        .filter((member) => member && member.properties);
      if (objects.length === 1) schema = objects[0];
    }
    return schema && schema.properties ? schema : null;
  }

  /** One table row per property, nested objects indented under their parent (at most 6 levels). */
  function schemaRows(spec, raw, depth, seen, rows) {
    const object = fieldsOf(spec, raw);
    if (!object || depth > 6 || seen.has(object)) return rows;
    const required = new Set(object.required || []);
    for (const [name, property] of Object.entries(object.properties)) {
      const target = resolve(spec, property).schema || {};
      const nameCell = el(
        'td',
        { className: 'name' },
        el('span', { textContent: name, className: target.deprecated ? 'deprecated' : '' }),
      );
      if (required.has(name))
        nameCell.append(el('span', { className: 'req', textContent: '*', title: 'required' }));
      nameCell.style.paddingLeft = 0.5 + depth * 1.2 + 'rem';
      const about = el('td', {}, target.description || property.description || '');
      if (target.deprecated)
        about.prepend(el('span', { className: 'constraint', textContent: 'deprecated' }));
      about.append(...constraints(target));
      rows.push(
        el(
          'tr',
          {},
          nameCell,
          el('td', { className: 'type', textContent: typeLabel(spec, property) }),
          about,
        ),
      );
      schemaRows(spec, property, depth + 1, new Set([...seen, object]), rows);
    }
    return rows;
  }

  function fieldsTable(rows) {
    const head = el(
      'tr',
      {},
      el('th', { textContent: 'field' }),
      el('th', { textContent: 'type' }),
      el('th', { textContent: 'about' }),
    );
    return el('table', { className: 'fields' }, head, ...rows);
  }

  /** A schema as a field table; a named schema (components.schemas) is a link to its one description below. */
  function schemaView(spec, schema) {
    const view = el('div', {});
    const named = resolve(spec, schema).name;
    if (named) {
      view.append(
        el('div', { className: 'ref' }, 'schema ', el('a', { href: '#schema-' + named, textContent: named })),
      );
      return view;
    }
    const rows = schemaRows(spec, schema, 0, new Set(), []);
    const label = typeLabel(spec, schema);
    if (!rows.length || label.startsWith('array'))
      view.append(el('div', { className: 'ref', textContent: label }));
    if (rows.length) view.append(fieldsTable(rows));
    view.append(
      el(
        'details',
        { className: 'raw' },
        el('summary', { textContent: 'JSON Schema' }),
        el('pre', { textContent: JSON.stringify(schema, null, 2) }),
      ),
    );
    return view;
  }

  /** travellerBearer and travellerCookie are two ways of one sign-in: show "traveller" once. */
  function accessLabel(operation) {
    const security = operation.security || [];
    if (security.length === 0) return { text: 'public', schemes: 'none', required: false };
    const schemes = security.flatMap((requirement) => Object.keys(requirement));
    const who = [...new Set(schemes.map((scheme) => scheme.replace(/(Bearer|Cookie|Session)$/, '')))];
    const optional = security.some((requirement) => Object.keys(requirement).length === 0);
    return {
      text: who.join(' or ') + (optional ? ' (optional)' : ''),
      schemes: schemes.join(' or ') + (optional ? ', or none' : ''),
      required: !optional,
    };
  }

  function parametersView(spec, parameters) {
    const rows = parameters.map((parameter) => {
      const schema = parameter.schema || {};
      const name = el('td', { className: 'name' }, parameter.name);
      if (parameter.required)
        name.append(el('span', { className: 'req', textContent: '*', title: 'required' }));
      return el(
        'tr',
        {},
        name,
        el('td', { textContent: parameter.in }),
        el('td', { className: 'type', textContent: typeLabel(spec, schema) }),
        el('td', {}, parameter.description || schema.description || '', ...constraints(schema)),
      );
    });
    return el(
      'table',
      {},
      el('tr', {}, ...['parameter', 'in', 'type', 'about'].map((text) => el('th', { textContent: text }))),
      ...rows,
    );
  }

  function responseView(spec, status, response) {
    const head = el(
      'div',
      { className: 'head' },
      el('span', { className: 'status s' + status[0], textContent: status }),
      el('span', { textContent: response.description || '' }),
    );
    const box = el('div', { className: 'response' }, head);
    const content = response.content && Object.entries(response.content)[0];
    if (content) {
      const [mediaType, { schema }] = content;
      head.append(el('span', { className: 'ref', textContent: mediaType }));
      if (schema) box.append(el('div', { className: 'body' }, schemaView(spec, schema)));
    }
    return box;
  }

  function operationView(spec, path, method, operation, tag) {
    const access = accessLabel(operation);
    const details = el('details', { className: 'op ' + method, id: operation.operationId || method + path });
    details.dataset.search = [
      method,
      path,
      operation.summary,
      operation.operationId,
      ...(operation.tags || [tag]),
    ]
      .join(' ')
      .toLowerCase();
    details.append(
      el(
        'summary',
        {},
        el('span', { className: 'method ' + method, textContent: method }),
        el('span', { className: 'path', textContent: path }),
        el('span', { className: 'summary', textContent: operation.summary || '' }),
        el('span', {
          className: 'auth' + (access.required ? ' required' : ''),
          textContent: access.text,
          title: 'access',
        }),
      ),
    );
    const body = el('div', { className: 'body' });
    body.append(
      el(
        'p',
        { className: 'meta' },
        'operationId ',
        el('code', { textContent: operation.operationId || '' }),
        ' · credentials ',
        el('code', { textContent: access.schemes }),
      ),
    );
    if (operation.description) body.append(el('p', { textContent: operation.description }));
    if (operation.parameters && operation.parameters.length)
      body.append(el('h4', { textContent: 'Parameters' }), parametersView(spec, operation.parameters));
    const requestBody =
      operation.requestBody &&
      operation.requestBody.content &&
      operation.requestBody.content['application/json'];
    if (requestBody)
      body.append(
        el('h4', { textContent: 'Request body (application/json)' }),
        schemaView(spec, requestBody.schema),
      );
    body.append(el('h4', { textContent: 'Responses' }));
    for (const [status, response] of Object.entries(operation.responses || {}))
      body.append(responseView(spec, status, response));
    details.append(body);
    return details;
  }

  function render(spec) {
    document.title = spec.info.title + ' reference';
    document.getElementById('title').textContent = spec.info.title;
    document.getElementById('version').textContent = 'v' + spec.info.version;
    document.getElementById('description').textContent = spec.info.description || '';

    const byTag = new Map();
    for (const [path, item] of Object.entries(spec.paths || {})) {
      for (const method of HTTP_METHODS) {
        const operation = item[method];
        if (!operation) continue;
        const tag = (operation.tags && operation.tags[0]) || 'Other';
        if (!byTag.has(tag)) byTag.set(tag, []);
        byTag.get(tag).push(operationView(spec, path, method, operation, tag));
      }
    }
    const container = document.getElementById('operations');
    const nav = document.getElementById('tags');
    const sections = [];
    for (const [tag, operations] of [...byTag.entries()].sort(([a], [b]) => a.localeCompare(b))) {
      const anchor = 'tag-' + tag.toLowerCase().replace(/[^a-z0-9]+/g, '-');
      const section = el(
        'section',
        { className: 'tag', id: anchor },
        el('h2', { textContent: tag }),
        ...operations,
      );
      const count = el('span', { className: 'count', textContent: String(operations.length) });
      const link = el('a', { href: '#' + anchor }, el('span', { textContent: tag }), count);
      nav.append(link);
      container.append(section);
      sections.push({ section, operations, link, count });
    }
    const schemas = Object.entries((spec.components && spec.components.schemas) || {});
    if (schemas.length) {
      const list = schemas.map(([name, schema]) =>
        el(
          'div',
          { className: 'schema', id: 'schema-' + name },
          el('h3', { textContent: name }),
          schema.description ? el('p', { textContent: schema.description }) : null,
          fieldsTable(schemaRows(spec, schema, 0, new Set(), [])),
        ),
      );
      container.append(
        el('section', { className: 'schemas', id: 'schemas' }, el('h2', { textContent: 'Schemas' }), ...list),
      );
      nav.append(
        el(
          'a',
          { href: '#schemas' },
          el('span', { textContent: 'Schemas' }),
          el('span', { className: 'count', textContent: String(schemas.length) }),
        ),
      );
    }
    const total = sections.reduce((sum, { operations }) => sum + operations.length, 0);
    const status = document.getElementById('status');
    const empty = document.getElementById('empty');

    function applyFilter(needle) {
      let shown = 0;
      for (const { section, operations, link, count } of sections) {
        let inSection = 0;
        for (const details of operations) {
          details.hidden = needle !== '' && !details.dataset.search.includes(needle);
          if (!details.hidden) inSection += 1;
        }
        section.hidden = inSection === 0;
        link.classList.toggle('empty', inSection === 0);
        count.textContent = needle === '' ? String(operations.length) : inSection + '/' + operations.length;
        shown += inSection;
      }
      status.textContent =
        needle === '' ? total + ' operations' : 'Showing ' + shown + ' of ' + total + ' operations';
      empty.hidden = shown !== 0;
    }

    document
      .getElementById('filter')
      .addEventListener('input', (event) => applyFilter(event.target.value.trim().toLowerCase()));
    applyFilter('');

    // A link to #operationId opens that operation.
    const target = location.hash && document.getElementById(decodeURIComponent(location.hash.slice(1)));
    if (target && target.matches('details.op')) {
      target.open = true;
      target.scrollIntoView();
    }
  }

  fetch('/api/openapi.json')
    .then((response) => {
      if (!response.ok) throw new Error('HTTP ' + response.status);
      return response.json();
    })
    .then((spec) => {
      render(spec);
      document.body.dataset.ready = 'true';
    })
    .catch((error) => {
      const message = el('p', {
        id: 'load-error',
        textContent: 'The OpenAPI document could not be loaded (' + error.message + ').',
      });
      document.getElementById('operations').append(message);
      document.body.dataset.ready = 'error';
    });
})();
