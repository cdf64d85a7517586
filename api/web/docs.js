// Renders /api/openapi.json as a browsable list of operations, grouped by tag.
(async function () {
  const response = await fetch('/api/openapi.json');
  const spec = await response.json();
  document.getElementById('title').textContent = spec.info.title + ' ' + spec.info.version;
  document.getElementById('description').textContent = spec.info.description;
  const container = document.getElementById('operations');
  const byTag = new Map();
  for (const [path, methods] of Object.entries(spec.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const tag = (op.tags && op.tags[0]) || 'other';
      if (!byTag.has(tag)) byTag.set(tag, []);
      byTag.get(tag).push({ path, method, op });
    }
  }
  const el = (tag, attrs, ...children) => {
    const node = document.createElement(tag);
    Object.assign(node, attrs || {});
    for (const child of children) node.append(child);
    return node;
  };
  const json = (value) => el('pre', { textContent: JSON.stringify(value, null, 2) });
  for (const [tag, ops] of [...byTag.entries()].sort()) {
    const section = el('section', { className: 'tag' }, el('h2', { textContent: tag }));
    for (const { path, method, op } of ops) {
      const details = el('details', { className: 'op' });
      details.dataset.search = (method + ' ' + path + ' ' + op.summary + ' ' + tag).toLowerCase();
      details.append(
        el('summary', {}, el('span', { className: 'method ' + method, textContent: method }), el('span', { className: 'path', textContent: path }), el('span', { textContent: op.summary })),
      );
      const body = el('div', { className: 'body' });
      if (op.description) body.append(el('p', { textContent: op.description }));
      if (op.parameters && op.parameters.length) {
        const table = el('table', {}, el('tr', {}, el('th', { textContent: 'parameter' }), el('th', { textContent: 'in' }), el('th', { textContent: 'schema' })));
        for (const p of op.parameters) {
          table.append(el('tr', {}, el('td', { textContent: p.name + (p.required ? ' *' : '') }), el('td', { textContent: p.in }), el('td', {}, json(p.schema))));
        }
        body.append(el('h4', { textContent: 'Parameters' }), table);
      }
      if (op.requestBody) body.append(el('h4', { textContent: 'Request body' }), json(op.requestBody.content['application/json'].schema));
      body.append(el('h4', { textContent: 'Responses' }));
      for (const [status, r] of Object.entries(op.responses)) {
        body.append(el('p', { textContent: status + ': ' + r.description }));
        const content = r.content && Object.values(r.content)[0];
        if (content && content.schema) body.append(json(content.schema));
      }
      details.append(body);
      section.append(details);
    }
    container.append(section);
  }
  document.getElementById('filter').addEventListener('input', (event) => {
    const needle = event.target.value.toLowerCase();
    for (const details of document.querySelectorAll('details.op')) {
      details.hidden = needle !== '' && !details.dataset.search.includes(needle);
    }
  });
  document.body.dataset.ready = 'true';
})();
