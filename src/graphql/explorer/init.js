// Starts GraphiQL on /graphiql. A file rather than an inline script, so the page's Content Security
// Policy keeps `script-src 'self'`. React, ReactDOM and GraphiQL are globals of the UMD bundles.
/* global React, ReactDOM, GraphiQL */
(function () {
  'use strict';
  var container = document.getElementById('graphiql');
  var endpoint = container.dataset.endpoint;

  var DEFAULT_QUERY = [
    "# Welcome to pulsegate's GraphiQL.",
    '#',
    '# Most data needs a token: open "Headers" below and enter',
    '#   { "Authorization": "Bearer <your token>" }',
    '# (a personal access token or an OAuth access token with scope read_api or api;',
    '# { "PRIVATE-TOKEN": "<your token>" } works too). Headers are never saved.',
    '#',
    '# Run with Ctrl+Enter or the ▶ button; the Docs button on the left lists every type.',
    '',
    'query MyActivity {',
    '  currentUser {',
    '    username',
    '  }',
    '  events(first: 5) {',
    '    totalCount',
    '    nodes {',
    '      actionName',
    '      createdAt',
    '      targetTitle',
    '      project {',
    '        fullPath',
    '      }',
    '    }',
    '    pageInfo {',
    '      hasNextPage',
    '      endCursor',
    '    }',
    '  }',
    '}',
    '',
  ].join('\n');

  // `?query=` and `?variables=` open a shared link; edits are written back so the address bar can
  // be shared again. Headers never go into the address: they hold the user's token.
  var params = new URLSearchParams(window.location.search);
  function writeBack(name) {
    return function (value) {
      if (value) params.set(name, value);
      else params.delete(name);
      var search = params.toString();
      window.history.replaceState(
        null,
        '',
        window.location.pathname + (search ? '?' + search : '') + window.location.hash,
      );
    };
  }

  // GraphiQL's query history saves each run's headers in localStorage even when headers are not
  // persisted, so the storage it is given drops them from history entries on the way in. (A
  // history entry picked after a reload then clears the Headers editor: re-enter the token.)
  var NAMESPACE = 'graphiql:';
  var HISTORY_KEYS = ['graphiql:queries', 'graphiql:favorites'];
  function withoutHeaders(key, value) {
    if (key === NAMESPACE + 'headers') return null;
    if (HISTORY_KEYS.indexOf(key) < 0) return value;
    try {
      var saved = JSON.parse(value);
      var list = saved[key.slice(NAMESPACE.length)];
      if (!Array.isArray(list)) return null;
      list.forEach(function (entry) {
        delete entry.headers;
      });
      return JSON.stringify(saved);
    } catch {
      return null;
    }
  }
  var local = window.localStorage;
  var storage = {
    getItem: function (key) {
      return local.getItem(key);
    },
    setItem: function (key, value) {
      var kept = withoutHeaders(key, value);
      if (kept === null) local.removeItem(key);
      else local.setItem(key, kept);
    },
    removeItem: function (key) {
      local.removeItem(key);
    },
    // Only GraphiQL's own keys: counted and cleared by its "Clear storage" setting.
    get length() {
      return ownKeys().length;
    },
    clear: function () {
      ownKeys().forEach(function (key) {
        local.removeItem(key);
      });
    },
  };
  function ownKeys() {
    var keys = [];
    for (var i = 0; i < local.length; i += 1) {
      var key = local.key(i);
      if (key !== null && key.indexOf(NAMESPACE) === 0) keys.push(key);
    }
    return keys;
  }

  var props = {
    storage: storage,
    fetcher: GraphiQL.createFetcher({ url: endpoint, enableIncrementalDelivery: false }),
    defaultQuery: DEFAULT_QUERY,
    isHeadersEditorEnabled: true,
    // Headers (the token) live in this page only: never in localStorage, and GraphiQL's settings
    // dialog does not offer to persist them.
    shouldPersistHeaders: false,
    defaultEditorToolsVisibility: params.has('variables') ? 'variables' : 'headers',
    onEditQuery: writeBack('query'),
    onEditVariables: writeBack('variables'),
  };
  if (params.has('query')) props.query = params.get('query');
  if (params.has('variables')) props.variables = params.get('variables');

  ReactDOM.createRoot(container).render(React.createElement(GraphiQL, props));
})();
