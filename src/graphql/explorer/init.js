// Starts GraphiQL on /graphiql. A file rather than an inline script, so the page's Content Security
// Policy keeps `script-src 'self'`. React, ReactDOM and GraphiQL are globals of the UMD bundles.
/* global React, ReactDOM, GraphiQL */
(function () {
  'use strict';
  var container = document.getElementById('graphiql');
  var endpoint = container.dataset.endpoint;

  var csrf = container.dataset.csrf;
  var username = container.dataset.username;

  // Short lines: the welcome must fit the editor pane beside the results, even on a laptop.
  var WELCOME = csrf
    ? [
        "# Welcome to pulsegate's GraphiQL.",
        '#',
        '# Signed in as ' + username + ': queries run as you',
        '# (read access). To try a token instead, add',
        '#   { "Authorization": "Bearer <token>" }',
        '# under "Headers" below.',
      ]
    : [
        "# Welcome to pulsegate's GraphiQL.",
        '#',
        '# Sign in (/users/sign_in) and reload to run',
        '# queries as yourself, or open "Headers"',
        '# below and enter',
        '#   { "Authorization": "Bearer <token>" }',
        '# (a personal access token or OAuth token',
        '# with scope read_api or api). Headers are',
        '# never saved.',
      ];
  var DEFAULT_QUERY = WELCOME.concat([
    '#',
    '# Run: Ctrl+Enter or ▶. Docs: the book icon.',
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
  ]).join('\n');

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

  // GraphiQL re-reads the operation names 100 ms after an edit, so a query typed and run at once
  // would go out with the previous query's operation name ("Unknown operation named …"). The
  // fetcher sends the name only when the text being sent defines it; a name that is not there
  // is dropped, and the server runs the document's only operation.
  function operationNames(query) {
    var names = [];
    var pattern = /\b(?:query|mutation|subscription)\s+([_A-Za-z][_0-9A-Za-z]*)/g;
    var text = query.replace(/"(?:[^"\\\n]|\\.)*"|#[^\n]*/g, ' ');
    var match;
    while ((match = pattern.exec(text)) !== null) names.push(match[1]);
    return names;
  }
  var fetchGraphQL = GraphiQL.createFetcher({
    url: endpoint,
    enableIncrementalDelivery: false,
    // The signed-in session: the cookie goes along (same origin), with its CSRF token.
    headers: csrf ? { 'X-CSRF-Token': csrf } : {},
  });
  function fetcher(params, options) {
    var name = params.operationName;
    if (
      name &&
      typeof params.query === 'string' &&
      operationNames(params.query).indexOf(name) < 0
    ) {
      params = Object.assign({}, params, { operationName: undefined });
    }
    return fetchGraphQL(params, options);
  }

  var props = {
    storage: storage,
    fetcher: fetcher,
    defaultQuery: DEFAULT_QUERY,
    isHeadersEditorEnabled: true,
    // Headers (the token) live in this page only: never in localStorage, and GraphiQL's settings
    // dialog does not offer to persist them.
    shouldPersistHeaders: false,
    // On a phone the panes are stacked: a signed-in user needs no Headers, so the query and its
    // result get the height.
    defaultEditorToolsVisibility: params.has('variables')
      ? 'variables'
      : csrf && window.matchMedia('(max-width: 40rem)').matches
        ? false
        : 'headers',
    onEditQuery: writeBack('query'),
    onEditVariables: writeBack('variables'),
  };
  if (params.has('query')) props.query = params.get('query');
  if (params.has('variables')) props.variables = params.get('variables');

  ReactDOM.createRoot(container).render(React.createElement(GraphiQL, props));
})();
