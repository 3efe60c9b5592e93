// pulsegate's self-hosted GraphQL explorer: plain browser JavaScript, no external assets.
/* global performance, Event */
(function () {
  'use strict';
  var ENDPOINT = '/api/graphql';
  var STORE = window.localStorage;
  // Headers carry tokens: kept for this tab only, never in localStorage.
  var SESSION = window.sessionStorage;
  var $ = function (id) {
    return document.getElementById(id);
  };
  var query = $('query');
  var variables = $('variables');
  var headers = $('headers');
  var result = $('result');
  var status = $('status');

  var DEFAULT_QUERY = [
    '# Welcome to pulsegate. Put a token in Headers, e.g.',
    '# { "Authorization": "Bearer <token>" } or { "PRIVATE-TOKEN": "<token>" }',
    '# then press Ctrl+Enter.',
    'query MyEvents {',
    '  currentUser {',
    '    username',
    '  }',
    '  events(first: 5) {',
    '    totalCount',
    '    nodes {',
    '      databaseId',
    '      action',
    '      actionName',
    '      createdAt',
    '      targetTitle',
    '      author { username }',
    '      project { fullPath }',
    '    }',
    '    pageInfo { hasNextPage endCursor }',
    '  }',
    '}',
  ].join('\n');

  var params = new URLSearchParams(window.location.search);
  query.value = params.get('query') || STORE.getItem('pulsegate.query') || DEFAULT_QUERY;
  variables.value = params.get('variables') || STORE.getItem('pulsegate.variables') || '';
  headers.value = SESSION.getItem('pulsegate.headers') || '';

  query.addEventListener('input', function () {
    STORE.setItem('pulsegate.query', query.value);
  });
  variables.addEventListener('input', function () {
    STORE.setItem('pulsegate.variables', variables.value);
  });
  headers.addEventListener('input', function () {
    SESSION.setItem('pulsegate.headers', headers.value);
  });

  function parseJson(text, what) {
    if (!text.trim()) return {};
    try {
      var value = JSON.parse(text);
      if (value === null || typeof value !== 'object' || Array.isArray(value)) {
        throw new Error('must be a JSON object');
      }
      return value;
    } catch (error) {
      throw new Error(what + ' are not valid JSON: ' + error.message);
    }
  }

  function request(body) {
    var extra = parseJson(headers.value, 'Headers');
    var all = { 'content-type': 'application/json', accept: 'application/json' };
    Object.keys(extra).forEach(function (key) {
      all[key] = String(extra[key]);
    });
    return fetch(ENDPOINT, { method: 'POST', headers: all, body: JSON.stringify(body) });
  }

  function run() {
    var vars;
    try {
      vars = parseJson(variables.value, 'Variables');
    } catch (error) {
      result.textContent = error.message;
      return;
    }
    status.textContent = 'running…';
    var started = performance.now();
    var httpStatus = 0;
    Promise.resolve()
      .then(function () {
        return request({ query: query.value, variables: vars });
      })
      .then(function (response) {
        httpStatus = response.status;
        return response.text();
      })
      .then(function (text) {
        var ms = Math.round(performance.now() - started);
        status.textContent = 'HTTP ' + httpStatus + ' · ' + ms + ' ms';
        try {
          result.textContent = JSON.stringify(JSON.parse(text), null, 2);
        } catch {
          result.textContent = text;
        }
        result.setAttribute('data-status', String(httpStatus));
        loadSchema();
      })
      .catch(function (error) {
        status.textContent = 'failed';
        result.textContent = String(error && error.message ? error.message : error);
      });
  }

  // Editing comforts: Ctrl/Cmd+Enter runs, Tab indents.
  [query, variables, headers].forEach(function (area) {
    area.addEventListener('keydown', function (event) {
      if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
        event.preventDefault();
        run();
      } else if (event.key === 'Tab' && !event.shiftKey) {
        event.preventDefault();
        var start = area.selectionStart;
        area.setRangeText('  ', start, area.selectionEnd, 'end');
        area.dispatchEvent(new Event('input'));
      }
    });
  });
  $('run').addEventListener('click', run);

  // Re-indents by brace depth; strings and comments are left as they are.
  $('prettify').addEventListener('click', function () {
    var depth = 0;
    query.value = query.value
      .split('\n')
      .map(function (line) {
        var text = line.trim();
        if (!text) return '';
        var code = text.replace(/"(?:[^"\\]|\\.)*"/g, '""').replace(/#.*$/, '');
        var opens = (code.match(/[{(]/g) || []).length;
        var closes = (code.match(/[})]/g) || []).length;
        var leading = /^[})]/.test(code) ? 1 : 0;
        var indent = Math.max(depth - leading, 0);
        depth = Math.max(depth + opens - closes, 0);
        return '  '.repeat(indent) + text;
      })
      .join('\n');
    STORE.setItem('pulsegate.query', query.value);
  });

  function selectTab(which) {
    var isVars = which === 'variables';
    variables.hidden = !isVars;
    headers.hidden = isVars;
    $('tab-variables').setAttribute('aria-selected', String(isVars));
    $('tab-headers').setAttribute('aria-selected', String(!isVars));
  }
  $('tab-variables').addEventListener('click', function () {
    selectTab('variables');
  });
  $('tab-headers').addEventListener('click', function () {
    selectTab('headers');
  });
  $('docs-toggle').addEventListener('click', function () {
    var docs = $('docs');
    docs.hidden = !docs.hidden;
    $('docs-toggle').setAttribute('aria-expanded', String(!docs.hidden));
  });

  // Schema documentation from introspection.
  var INTROSPECTION =
    'query Introspection { __schema { queryType { name } types { kind name description ' +
    'fields { name description args { name type { ...T } } type { ...T } } ' +
    'inputFields { name description type { ...T } } enumValues { name description } ' +
    'possibleTypes { name } interfaces { name } } } } ' +
    'fragment T on __Type { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name } } } } }';
  var types = null;
  var trail = [];

  function typeName(t) {
    if (t.kind === 'NON_NULL') return typeName(t.ofType) + '!';
    if (t.kind === 'LIST') return '[' + typeName(t.ofType) + ']';
    return t.name;
  }
  function named(t) {
    return t.ofType ? named(t.ofType) : t.name;
  }
  function el(tag, text, className) {
    var node = document.createElement(tag);
    if (text) node.textContent = text;
    if (className) node.className = className;
    return node;
  }
  // Real links (href) so keyboards and assistive technology treat them as links.
  function anchor(text, onClick) {
    var a = el('a', text);
    a.href = '#';
    a.addEventListener('click', function (event) {
      event.preventDefault();
      onClick();
    });
    return a;
  }
  function link(name) {
    return anchor(name, function () {
      show(name.replace(/[[\]!]/g, ''), true);
    });
  }
  function typeLink(t) {
    var text = typeName(t);
    var base = named(t);
    var span = el('span');
    var i = text.indexOf(base);
    span.appendChild(document.createTextNode(text.slice(0, i)));
    span.appendChild(link(base));
    span.appendChild(document.createTextNode(text.slice(i + base.length)));
    return span;
  }
  function show(name, push) {
    var type = types && types[name];
    if (!type) return;
    if (push) trail.push(name);
    var nav = $('docs-nav');
    var body = $('docs-body');
    nav.textContent = '';
    body.textContent = '';
    trail.forEach(function (item, index) {
      if (index > 0) nav.appendChild(document.createTextNode(' › '));
      nav.appendChild(
        anchor(item, function () {
          trail = trail.slice(0, index + 1);
          show(item, false);
        }),
      );
    });
    body.appendChild(el('h2', type.name + ' (' + type.kind.toLowerCase().replace('_', ' ') + ')'));
    if (type.description) body.appendChild(el('p', type.description, 'desc'));
    var list = el('ul');
    (type.fields || type.inputFields || []).forEach(function (field) {
      var item = el('li');
      item.appendChild(document.createTextNode(field.name));
      if (field.args && field.args.length) {
        item.appendChild(document.createTextNode('('));
        field.args.forEach(function (arg, index) {
          if (index) item.appendChild(document.createTextNode(', '));
          item.appendChild(document.createTextNode(arg.name + ': '));
          item.appendChild(typeLink(arg.type));
        });
        item.appendChild(document.createTextNode(')'));
      }
      item.appendChild(document.createTextNode(': '));
      item.appendChild(typeLink(field.type));
      if (field.description) item.appendChild(el('p', field.description, 'desc'));
      list.appendChild(item);
    });
    (type.enumValues || []).forEach(function (value) {
      var item = el('li', value.name);
      if (value.description) item.appendChild(el('p', value.description, 'desc'));
      list.appendChild(item);
    });
    (type.possibleTypes || []).forEach(function (possible) {
      var item = el('li');
      item.appendChild(link(possible.name));
      list.appendChild(item);
    });
    body.appendChild(list);
  }

  function loadSchema() {
    if (types) return;
    var body;
    try {
      body = { query: INTROSPECTION };
      request(body)
        .then(function (response) {
          return response.json();
        })
        .then(function (json) {
          if (!json.data) return;
          types = {};
          json.data.__schema.types.forEach(function (t) {
            types[t.name] = t;
          });
          trail = [];
          show(json.data.__schema.queryType.name, true);
        })
        .catch(function () {
          $('docs-body').textContent = 'The schema could not be loaded.';
        });
    } catch (error) {
      $('docs-body').textContent = error.message;
    }
  }
  loadSchema();
})();
