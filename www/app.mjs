// The content-repo playground: a query builder over the SDK's browser build.
//
// Everything the page validates, it validates through the SDK (`Query`
// setters, `new Client`, `client.url`), so what it shows is exactly what the
// SDK accepts and sends. The API key lives in the password input only; it is
// stored (localStorage) only while "remember" is ticked, and never shown: the
// curl line masks it.
//
// Requests go through one "page client" with an offline cache (IndexedDB,
// the policy picked in the Offline panel). The Offline switch recreates it
// with a `fetch` that rejects like a browser without a network, so what the
// page shows offline is what the SDK answers from its cache.

const STORAGE_KEY = "content-repo-playground:apiKey";
/** The service's page size when a query sets no limit. */
const SERVICE_DEFAULT_LIMIT = 25;
const SCOPES = ["fields", "meta"];
const TARGETS = {
  collection: { label: "Collection API id", placeholder: "e.g. products" },
  document: { label: "Document id", placeholder: "a meta.id" },
  alias: { label: "Alias API id", placeholder: "e.g. home" },
  asset: { label: "Asset id", placeholder: "an asset's meta.id" },
};

const $ = (id) => /** @type {any} */ (document.getElementById(id));

/** Creates an element: `h("td", { className: "num" }, "12")`. */
function h(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "dataset") Object.assign(node.dataset, value);
    else if (key.startsWith("aria-") || key === "role" || key === "for") node.setAttribute(key, String(value));
    else node[key] = value;
  }
  node.append(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
  return node;
}

const show = (node, visible) => {
  node.hidden = !visible;
};

/** Shows `message` in an error paragraph (and marks `input` invalid), or hides it. */
function fieldError(node, message, input) {
  node.textContent = message ?? "";
  show(node, Boolean(message));
  if (input) {
    if (message) input.setAttribute("aria-invalid", "true");
    else input.removeAttribute("aria-invalid");
  }
}

const isObject = (v) => typeof v === "object" && v !== null && !Array.isArray(v);

/* ------------------------------------------------------------------------ */
/* Loading the SDK                                                           */
/* ------------------------------------------------------------------------ */

let sdk;
try {
  sdk = await import("/pkg/web/index.js");
  await sdk.ready();
} catch (error) {
  const badge = $("sdk-status");
  badge.textContent = `The SDK could not be loaded from /pkg/web/index.js (${error?.message ?? error}). Build it first: npm run build (npm start does).`;
  badge.classList.add("bad");
  for (const control of document.querySelectorAll("#playground :is(input, select, button)")) control.disabled = true;
  throw error;
}
const { Client, Query } = sdk;
const hasLocal = typeof sdk.applyQuery === "function";

/* ------------------------------------------------------------------------ */
/* State                                                                     */
/* ------------------------------------------------------------------------ */

const state = {
  /** @type {{ id: number, scope: string, name: string, dir: "ASC" | "DESC" }[]} */
  rows: [],
  nextRowId: 1,
  /** @type {AbortController | null} */
  pending: null,
  /** The last list response and how it was fetched (the local panel's input). */
  lastList: null,
  /** Repository info (for suggestions), by connection. */
  info: null,
  infoFor: "",
  infoTimer: 0,
  /** The last response shown, for the view toggle. */
  shown: null,
};

/** The page client and its offline cache (see "The offline cache" below). */
const offline = {
  /** The page client, or `null` until one is needed (or after it was dropped). */
  client: null,
  /** What `client` was made for: connection, key, policy, the Offline switch. */
  key: "",
  /** "indexeddb", or "memory" where IndexedDB is missing. */
  storage: "indexeddb",
  storageNote: "",
  /** `onCacheError` reports: `{ code, message, at }`, newest last. */
  errors: [],
  /** The running prefetch, or `null`. */
  /** @type {AbortController | null} */
  prefetching: null,
};

/* ------------------------------------------------------------------------ */
/* Connection and the API key                                                */
/* ------------------------------------------------------------------------ */

$("base-url").value = location.origin;

function storage() {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

{
  const stored = storage()?.getItem(STORAGE_KEY);
  if (stored) {
    $("api-key").value = stored;
    $("remember-key").checked = true;
  }
}

function persistKey() {
  const store = storage();
  try {
    if ($("remember-key").checked && $("api-key").value !== "") store?.setItem(STORAGE_KEY, $("api-key").value);
    else store?.removeItem(STORAGE_KEY);
  } catch (error) {
    announce(`The key could not be stored: ${error.message}`);
  }
}

/* ------------------------------------------------------------------------ */
/* Sort rows                                                                 */
/* ------------------------------------------------------------------------ */

function addSortRow() {
  const row = { id: state.nextRowId++, scope: "fields", name: "", dir: /** @type {"ASC"} */ ("ASC") };
  state.rows.push(row);
  renderSortRows();
  document.getElementById(`sort-name-${row.id}`)?.focus();
  update();
}

/** Re-renders the sort rows (structure changes only: typing does not re-render). */
function renderSortRows(focus) {
  const list = $("sort-list");
  const total = state.rows.length;
  list.replaceChildren(
    ...state.rows.map((row, i) => {
      const n = i + 1;
      const scopeId = `sort-scope-${row.id}`;
      const nameId = `sort-name-${row.id}`;
      const errorId = `sort-error-${row.id}`;
      const scope = h(
        "select",
        { id: scopeId, className: "scope", dataset: { role: "scope" } },
        SCOPES.map((s) => h("option", { value: s, selected: s === row.scope }, s)),
      );
      const name = h("input", {
        id: nameId,
        type: "text",
        className: "mono",
        value: row.name,
        placeholder: "field name",
        spellcheck: false,
        autocapitalize: "off",
        dataset: { role: "name" },
        "aria-describedby": errorId,
      });
      name.setAttribute("list", row.scope === "meta" ? "dl-meta" : "dl-fields");
      const buttons = h(
        "span",
        { className: "sort-buttons" },
        h(
          "button",
          {
            type: "button",
            className: "btn btn-small dir",
            dataset: { role: "dir", dir: row.dir },
            title: row.dir === "ASC" ? "Ascending: click for descending" : "Descending: click for ascending",
          },
          h("span", { className: "visually-hidden" }, `Sort key ${n} direction: `),
          row.dir,
        ),
        h("button", { type: "button", className: "btn btn-small icon", dataset: { role: "up" }, disabled: i === 0, "aria-label": `Move sort key ${n} up`, title: "Move up" }, "↑"),
        h("button", { type: "button", className: "btn btn-small icon", dataset: { role: "down" }, disabled: i === total - 1, "aria-label": `Move sort key ${n} down`, title: "Move down" }, "↓"),
        h("button", { type: "button", className: "btn btn-small icon", dataset: { role: "remove" }, "aria-label": `Remove sort key ${n}`, title: "Remove" }, "×"),
      );
      return h(
        "li",
        { className: "sort-row", dataset: { rowId: String(row.id) } },
        h(
          "div",
          { className: "sort-controls" },
          h("label", { className: "visually-hidden", for: scopeId }, `Sort key ${n} scope`),
          scope,
          h("span", { className: "dot", "aria-hidden": "true" }, "."),
          h("label", { className: "visually-hidden", for: nameId }, `Sort key ${n} field name`),
          name,
          buttons,
        ),
        h("p", { id: errorId, className: "field-error", hidden: true }),
      );
    }),
  );
  show($("sort-empty"), total === 0);
  if (focus) {
    const row = list.querySelector(`[data-row-id="${focus.id}"]`);
    const target = row?.querySelector(`[data-role="${focus.role}"]:not(:disabled)`) ?? row?.querySelector('[data-role="name"]');
    (target ?? $("add-sort")).focus();
  }
}

function rowOf(node) {
  const li = node.closest("[data-row-id]");
  if (!li) return null;
  const id = Number(li.dataset.rowId);
  const index = state.rows.findIndex((r) => r.id === id);
  return index < 0 ? null : { row: state.rows[index], index };
}

$("sort-list").addEventListener("input", (event) => {
  const found = rowOf(event.target);
  if (!found) return;
  const role = event.target.dataset.role;
  if (role === "name") found.row.name = event.target.value;
  if (role === "scope") {
    found.row.scope = event.target.value;
    event.target.closest("li").querySelector('[data-role="name"]').setAttribute("list", found.row.scope === "meta" ? "dl-meta" : "dl-fields");
  }
  update();
});

$("sort-list").addEventListener("click", (event) => {
  const button = event.target.closest("button[data-role]");
  if (!button) return;
  const found = rowOf(button);
  if (!found) return;
  const { row, index } = found;
  const role = button.dataset.role;
  if (role === "dir") {
    row.dir = row.dir === "ASC" ? "DESC" : "ASC";
    renderSortRows({ id: row.id, role: "dir" });
  } else if (role === "up" && index > 0) {
    state.rows.splice(index, 1);
    state.rows.splice(index - 1, 0, row);
    renderSortRows({ id: row.id, role: "up" });
  } else if (role === "down" && index < state.rows.length - 1) {
    state.rows.splice(index, 1);
    state.rows.splice(index + 1, 0, row);
    renderSortRows({ id: row.id, role: "down" });
  } else if (role === "remove") {
    state.rows.splice(index, 1);
    const next = state.rows[Math.min(index, state.rows.length - 1)];
    renderSortRows(next ? { id: next.id, role: "remove" } : { id: -1, role: "" });
  }
  update();
});

$("add-sort").addEventListener("click", addSortRow);

/* ------------------------------------------------------------------------ */
/* Building the request (all validation goes through the SDK)                */
/* ------------------------------------------------------------------------ */

/** Reads a number input: `null` when empty, `NaN` for unreadable text. */
function numberInput(input) {
  if (input.validity.badInput) return Number.NaN;
  if (input.value.trim() === "") return null;
  return input.valueAsNumber;
}

/**
 * Reads every control and builds the request with the SDK.
 * @returns {{ client: any, apiKey: string, kind: string, target: string, endpoint: object,
 *   query: any, selectionText: string, url: string | null, errors: Record<string, any>,
 *   blocking: string | null }}
 */
function build() {
  const errors = { sort: new Map() };
  const baseUrl = $("base-url").value.trim();
  const repository = $("repository").value.trim();
  const apiKey = $("api-key").value;

  let client = null;
  try {
    // The URL never contains the key, so a stand-in lets the URL show before one is typed.
    client = new Client({ baseUrl, repository, apiKey: apiKey === "" ? "stand-in" : apiKey });
  } catch (error) {
    if (apiKey !== "") {
      try {
        new Client({ baseUrl, repository, apiKey: "stand-in" });
        errors.key = error;
      } catch (other) {
        errors.connection = other;
      }
    } else errors.connection = error;
  }
  if (apiKey === "" && !errors.key) errors.keyMissing = true;

  const query = new Query();
  for (const row of state.rows) {
    const name = row.name.trim();
    if (name === "") continue;
    const key = `${row.scope}.${name}`;
    try {
      if (query.sorting.some((s) => s.key === key)) errors.sort.set(row.id, { message: `${key} is already a sort key above: this row replaces its direction there.`, soft: true });
      query.sort(key, row.dir);
    } catch (error) {
      errors.sort.set(row.id, error);
    }
  }

  const selectionText = $("fields").value;
  if (selectionText.trim() !== "") {
    try {
      query.fields(selectionText);
    } catch (error) {
      errors.fields = error;
    }
  }
  for (const name of ["limit", "offset"]) {
    const value = numberInput($(name));
    if (value === null) continue;
    try {
      query[name](value);
    } catch (error) {
      errors[name] = $(name).validity.badInput ? { message: `${name} must be a number` } : error;
    }
  }

  const kind = $("endpoint").value;
  const target = $("target").value.trim();
  const endpoint = kind === "documents" ? { documents: true } : { [kind]: target };
  let url = null;
  if (client) {
    try {
      url = client.url(endpoint, query);
    } catch (error) {
      errors.target = error;
    }
  }

  const hardSort = [...errors.sort.values()].some((e) => !e.soft);
  const blocking = errors.connection
    ? "Fix the connection to send."
    : errors.keyMissing
      ? "Enter an API key to send."
      : errors.key
        ? "Fix the API key to send."
        : errors.target
          ? "Fix the endpoint to send."
          : hardSort
            ? "Fix the sort keys to send."
            : errors.fields
              ? "Fix the selection to send."
              : errors.limit || errors.offset
                ? "Fix the limit or offset to send."
                : null;
  return { client, apiKey, kind, target, endpoint, query, selectionText, url, errors, blocking };
}

/** Quotes a word for a POSIX shell. */
const shellQuote = (text) => `'${text.replaceAll("'", `'\\''`)}'`;

/** Re-validates every control and refreshes the URL, the curl line and the buttons. */
function update() {
  const b = build();
  const { errors } = b;

  fieldError($("connection-error"), errors.connection?.message, null);
  for (const id of ["base-url", "repository"]) {
    if (errors.connection) $(id).setAttribute("aria-invalid", "true");
    else $(id).removeAttribute("aria-invalid");
  }
  fieldError($("key-error"), errors.key?.message, $("api-key"));
  fieldError($("target-error"), errors.target?.message, $("target"));

  for (const row of state.rows) {
    const error = errors.sort.get(row.id);
    const node = document.getElementById(`sort-error-${row.id}`);
    const input = document.getElementById(`sort-name-${row.id}`);
    if (!node || !input) continue;
    fieldError(node, error?.message, error && !error.soft ? input : null);
    node.classList.toggle("soft", Boolean(error?.soft));
    if (!error || error.soft) input.removeAttribute("aria-invalid");
  }

  renderSelection(b.selectionText, errors.fields, b.query);
  fieldError($("limit-error"), errors.limit?.message, $("limit"));
  fieldError($("offset-error"), errors.offset?.message, $("offset"));

  const urlBox = $("request-url");
  const curlBox = $("curl");
  // An invalid query has no URL: showing one without the invalid part would mislead.
  const queryError = errors.fields || errors.limit || errors.offset || [...errors.sort.values()].some((e) => !e.soft);
  if (b.url && !queryError) {
    urlBox.textContent = b.url;
    curlBox.textContent = `curl -H ${shellQuote("Authorization: ********")} ${shellQuote(b.url)}`;
    urlBox.classList.remove("muted");
    curlBox.classList.remove("muted");
  } else {
    urlBox.textContent = "(no URL: fix the errors in the query)";
    curlBox.textContent = "";
    urlBox.classList.add("muted");
  }
  $("copy-url").disabled = !b.url || Boolean(queryError);
  $("copy-curl").disabled = !b.url || Boolean(queryError);

  // Sorting, limit and offset are list parameters: one document ignores them.
  const single = !["documents", "collection"].includes(b.kind);
  const listParams = state.rows.length > 0 || numberInput($("limit")) !== null || numberInput($("offset")) !== null;
  show($("list-only"), single && listParams);

  const sendable = !b.blocking;
  $("send").disabled = !sendable || state.pending !== null;
  $("send-hint").textContent = state.pending ? "" : (b.blocking ?? "");

  updateLocalNote(b);
  updateOffline(b);
  scheduleInfo(b);
  return b;
}

/* ------------------------------------------------------------------------ */
/* The selection input: live validation with the error position marked      */
/* ------------------------------------------------------------------------ */

/** Replaces tabs and line breaks (one UTF-16 unit each) so columns stay aligned. */
const flat = (text) => text.replace(/[\t\r\n]/g, " ");

function renderSelection(text, error, query) {
  const input = $("fields");
  const mirror = $("fields-mirror");
  const box = $("fields-error");
  if (!error) {
    mirror.replaceChildren();
    show(box, false);
    input.removeAttribute("aria-invalid");
    const sent = query.selection;
    $("fields-hint").replaceChildren(
      ...(sent === undefined
        ? ["No selection: whole documents."]
        : ["Sent as ", h("code", {}, sent)]),
    );
    return;
  }
  const length = text.length;
  const position = Math.max(0, Math.min(Number.isInteger(error.position) ? error.position : length, length));
  // The character at the position (a whole surrogate pair), or a blank cell at the end.
  const code = text.charCodeAt(position);
  const width = code >= 0xd800 && code <= 0xdbff ? 2 : 1;
  const at = position < length ? flat(text.slice(position, position + width)) : " ";
  mirror.replaceChildren(
    flat(text.slice(0, position)),
    h("mark", { className: position < length ? "at-char" : "at-end", dataset: { position: String(position) } }, at),
    flat(text.slice(position + width)),
  );
  mirror.scrollLeft = input.scrollLeft;
  input.setAttribute("aria-invalid", "true");

  // A mirrored excerpt with a caret under the position (windowed for long input).
  const start = Math.max(0, position - 40);
  const end = Math.min(length, position + 40);
  const lead = start > 0 ? "…" : "";
  const excerpt = lead + flat(text.slice(start, end)) + (end < length ? "…" : "");
  $("fields-caret").textContent = `${excerpt}\n${" ".repeat(lead.length + position - start)}^ position ${position}`;
  $("fields-caret").dataset.position = String(position);
  $("fields-message").textContent = error.message;
  $("fields-expected").replaceChildren(...(error.expected ? ["Expected: ", h("code", {}, error.expected)] : []));
  $("fields-hint").textContent = "";
  show(box, true);
}

const syncMirror = () => {
  $("fields-mirror").scrollLeft = $("fields").scrollLeft;
};
for (const type of ["scroll", "keyup", "click", "select", "focus"]) $("fields").addEventListener(type, syncMirror);

/* ------------------------------------------------------------------------ */
/* Endpoint picker and suggestions                                           */
/* ------------------------------------------------------------------------ */

function updateTarget() {
  const kind = $("endpoint").value;
  const spec = TARGETS[kind];
  show($("target-field"), Boolean(spec));
  $("target").disabled = !spec;
  if (spec) {
    $("target-label").textContent = spec.label;
    $("target").placeholder = spec.placeholder;
  }
  fillSuggestions();
}

/** Fills the datalists from the repository info and the last results. */
function fillSuggestions() {
  const kind = $("endpoint").value;
  const info = state.info;
  let targets = [];
  if (kind === "collection") targets = (info?.collections ?? []).map((c) => c.apiId);
  else if (kind === "alias") targets = (info?.aliases ?? []).map((a) => a.apiId);
  else if (kind === "document") targets = (state.shown?.docs ?? []).map((d) => d?.meta?.id).filter(Boolean);
  $("dl-targets").replaceChildren(...[...new Set(targets)].slice(0, 200).map((v) => h("option", { value: String(v) })));

  // Field names: the content type of the chosen collection first, then every other.
  const names = new Set();
  const types = Array.isArray(info?.contentTypes) ? info.contentTypes : [];
  if (kind === "collection") {
    const type = (info?.collections ?? []).find((c) => c.apiId === $("target").value.trim())?.contentType;
    for (const t of types) if (t.apiId === type) for (const f of t.fields ?? []) names.add(f.apiId);
  }
  for (const t of types) if (t.apiId !== "asset" || kind === "asset") for (const f of t.fields ?? []) names.add(f.apiId);
  for (const d of state.shown?.docs ?? []) if (isObject(d?.fields)) for (const k of Object.keys(d.fields)) names.add(k);
  $("dl-fields").replaceChildren(...[...names].map((v) => h("option", { value: v })));
}

/** Loads the repository info (content types, collections, aliases) once per connection. */
function scheduleInfo(b) {
  if (!b.client || b.errors.keyMissing || b.errors.key) return;
  const key = `${b.client.baseUrl}\n${b.client.repositoryName}\n${b.apiKey}`;
  if (key === state.infoFor) return;
  state.infoFor = key;
  clearTimeout(state.infoTimer);
  state.infoTimer = setTimeout(async () => {
    // The page client (so the Offline switch and the policy apply here too);
    // creating it also opens its cache, whose size the Offline panel shows.
    const client = pageClient(build());
    if (!client) return;
    try {
      const info = await client.repository();
      if (state.infoFor !== key) return;
      state.info = info;
      fillSuggestions();
    } catch {
      // Suggestions are a convenience: a wrong key or URL shows up when sending.
      if (state.infoFor === key) state.info = null;
    } finally {
      settled(client);
    }
  }, 400);
}

$("endpoint").addEventListener("change", () => {
  updateTarget();
  update();
});

/* ------------------------------------------------------------------------ */
/* Sending                                                                   */
/* ------------------------------------------------------------------------ */

function announce(text) {
  $("status").textContent = text;
}

function call(client, kind, target, query, options) {
  switch (kind) {
    case "collection":
      return client.collection(target, query, options);
    case "document":
      return client.document(target, query, options);
    case "alias":
      return client.alias(target, query, options);
    case "asset":
      return client.asset(target, query, options);
    default:
      return client.documents(query, options);
  }
}

function setPending(controller) {
  state.pending = controller;
  $("cancel").disabled = controller === null;
  $("apply-local").disabled = controller !== null;
  $("fetch-complete").disabled = controller !== null;
  document.body.classList.toggle("busy", controller !== null);
  update();
}

const isList = (value) => isObject(value) && Array.isArray(value.data);

const formatMs = (ms) => (ms < 10 ? ms.toFixed(2) : ms < 100 ? ms.toFixed(1) : Math.round(ms).toString());

async function send() {
  const b = update();
  if (b.blocking || state.pending) return;
  const controller = new AbortController();
  setPending(controller);
  announce("Sending…");
  const started = performance.now();
  const mode = cacheMode();
  let client = null;
  try {
    client = pageClient(b);
    const result = await call(client, b.kind, b.target, b.query, { signal: controller.signal });
    const ms = performance.now() - started;
    showResult(result, { ms, selectionText: b.selectionText, source: result?.source, stale: result?.stale, mode });
    if (isList(result) && (b.kind === "documents" || b.kind === "collection")) {
      const meta = isObject(result.meta) ? result.meta : {};
      state.lastList = {
        kind: b.kind,
        target: b.target,
        label: b.kind === "documents" ? "documents" : `collections/${b.target}`,
        list: result,
        selection: b.query.selection,
        count: result.data.length,
        total: typeof meta.total === "number" ? meta.total : result.data.length,
        complete: (meta.offset ?? 0) === 0 && result.data.length >= (meta.total ?? result.data.length),
      };
    }
    announce(`Done in ${formatMs(ms)} ms: ${describeResult(result)}, from the ${result?.source ?? "network"}${result?.stale ? " (stale)" : ""}.`);
  } catch (error) {
    const ms = performance.now() - started;
    showError(error, ms, mode);
    announce(error?.code === "aborted" ? "Cancelled." : `Failed: ${error?.code ?? "error"}${error?.status ? ` ${error.status}` : ""}.`);
  } finally {
    setPending(null);
    settled(client);
    renderCacheSize();
  }
}

function describeResult(result) {
  if (isList(result)) {
    const total = result.meta?.total;
    return `${result.data.length} document${result.data.length === 1 ? "" : "s"}${typeof total === "number" ? ` of ${total}` : ""}`;
  }
  return "one document";
}

$("playground").addEventListener("submit", (event) => {
  event.preventDefault();
  send();
});
$("cancel").addEventListener("click", () => state.pending?.abort());
document.addEventListener("keydown", (event) => {
  if (event.key === "Escape" && state.pending) state.pending.abort();
});

/* ------------------------------------------------------------------------ */
/* Results: facts, table, raw JSON, errors                                   */
/* ------------------------------------------------------------------------ */

function facts(entries) {
  const dl = $("results-facts");
  dl.replaceChildren(...entries.map(([term, value, cls]) => h("div", { className: cls ?? "" }, h("dt", {}, term), h("dd", {}, value))));
  show(dl, true);
}

/** The badges of a result's `source` and `stale`. */
function sourceBadges(source, stale) {
  const badges = [h("span", { id: "result-source", className: `src-badge src-${source}`, title: source === "cache" ? "Answered by the SDK's offline cache" : "Answered by the service" }, source)];
  if (stale) badges.push(" ", h("span", { id: "result-stale", className: "src-badge src-stale", title: "A cached answer given because the network failed, or older than maxAgeMs" }, "stale"));
  else if (source === "cache") badges.push(" ", h("span", { id: "result-stale", className: "src-badge src-fresh", title: "A cached answer, not stale" }, "fresh"));
  return badges;
}

function showResult(result, { ms, selectionText, source, stale, mode = cacheMode() }) {
  const docs = isList(result) ? result.data : [result];
  state.shown = { result, docs, selectionText };
  const meta = isList(result) && isObject(result.meta) ? result.meta : null;
  // Every result of a client with a cache says where it came from (`all`
  // too: it asks the service unless the policy answers from the cache).
  source = source === "cache" ? "cache" : "network";
  stale = stale === true;
  $("results-facts").dataset.source = source;
  $("results-facts").dataset.stale = String(stale);
  const entries = [
    ["Source", sourceBadges(source, stale), "fact-source"],
    ["Policy", `${mode.policy}${mode.offline ? " · offline" : ""}`],
    ["Time", `${formatMs(ms)} ms`],
    ["Documents", meta && typeof meta.total === "number" ? `${docs.length} of ${meta.total}` : String(docs.length)],
  ];
  if (meta && typeof meta.offset === "number") entries.push(["Offset", String(meta.offset)]);
  facts(entries);
  show($("result-error"), false);
  show($("results-empty"), false);
  renderTable($("results-table"), docs, selectionText, isList(result) ? "Documents" : "Document");
  $("results-json").textContent = JSON.stringify(result, null, 2);
  applyView();
  fillSuggestions();
}

function showError(error, ms, mode = cacheMode()) {
  const box = $("result-error");
  const code = error?.code ?? "error";
  const notCached = code === "not_cached";
  const { policy, offline: offlineOn } = mode;
  const parts = [
    h(
      "p",
      { className: "error-head" },
      h("span", { className: "code" }, code),
      notCached ? h("span", { className: "error-title" }, "Not in the cache") : null,
      error?.status !== undefined ? h("span", { className: "http-status" }, `HTTP ${error.status}`) : null,
      h("span", { className: "muted" }, `after ${formatMs(ms)} ms`),
    ),
    notCached
      ? h("p", { className: "error-message" }, h("span", { className: "error-label" }, "Reason: "), h("span", { id: "not-cached-reason" }, String(error?.message ?? error)))
      : h("p", { className: "error-message" }, String(error?.message ?? error)),
    notCached
      ? h(
          "p",
          { className: "error-help" },
          `The cache (policy ${policy}${offlineOn ? ", offline" : ""}) cannot answer this request and gives no thinner answer. `,
          "It answers an exact URL fetched before, any sorting and selection of a list made available offline, or a document cached with a selection covering the request's.",
        )
      : null,
    // The page client has a cache: a service it cannot reach shows as
    // not_cached, with the request's failure in the message.
    notCached && !offlineOn && /\(the request failed: (network error|request timed out)/.test(String(error?.message))
      ? h("p", { className: "error-help" }, "The service could not be reached: check the base URL (the local fixture server is the one `npm start` serves).")
      : null,
    !notCached && offlineOn && (code === "network" || code === "timeout")
      ? h("p", { className: "error-help" }, `The page is offline, and this request needed the service (policy ${policy}).`)
      : null,
    ...(error?.excerpt ? [h("pre", { className: "excerpt" }, error.excerpt)] : []),
  ].filter(Boolean);
  box.replaceChildren(...parts);
  box.classList.toggle("not-cached", notCached);
  box.dataset.code = code;
  show(box, true);
  show($("results-facts"), false);
  show($("results-empty"), false);
  show($("results-table"), false);
  show($("results-json"), false);
  state.shown = null;
}

function applyView() {
  const json = $("view-json").checked;
  const has = state.shown !== null;
  show($("results-table"), has && !json);
  show($("results-json"), has && json);
}
for (const id of ["view-table", "view-json"]) $(id).addEventListener("change", applyView);

/**
 * Parses a selection the SDK accepted into a tree of `Map`s (name → subtree,
 * `null` for a whole value), in the order written; whitespace is dropped
 * (names cannot contain any). Top-level names outside the scopes go into
 * `fields`, as the SDK reads them.
 */
function selectionTree(text) {
  const s = text.replace(/\s+/g, "");
  let i = 0;
  const merge = (map, name, node) => {
    if (!map.has(name)) map.set(name, node);
    else {
      const old = map.get(name);
      if (old === null || node === null) map.set(name, null);
      else for (const [k, v] of node) merge(old, k, v);
    }
  };
  const name = () => {
    const start = i;
    while (i < s.length && !",/()".includes(s[i])) i++;
    return s.slice(start, i);
  };
  const list = () => {
    const map = new Map();
    for (;;) {
      const path = [name()];
      while (s[i] === "/") {
        i++;
        path.push(name());
      }
      let node = null;
      if (s[i] === "(") {
        i++;
        node = list();
        i++;
      }
      for (let k = path.length - 1; k >= 1; k--) node = new Map([[path[k], node]]);
      merge(map, path[0], node);
      if (s[i] !== ",") return map;
      i++;
    }
  };
  const top = list();
  if (top.has("*")) return null;
  const tree = new Map();
  for (const [k, v] of top) {
    if (k === "fields" || k === "meta" || k === "includes") merge(tree, k, v);
    else merge(tree, "fields", new Map([[k, v]]));
  }
  if (!tree.has("meta")) tree.set("meta", null);
  return tree;
}

/** The value at `path`; arrays on the way are mapped element by element. */
function valueAt(value, path, i = 0) {
  if (i === path.length) return value;
  if (Array.isArray(value)) return value.map((e) => valueAt(e, path, i)).filter((e) => e !== undefined);
  if (isObject(value) && Object.hasOwn(value, path[i])) return valueAt(value[path[i]], path, i + 1);
  return undefined;
}

function keysAt(docs, path) {
  const keys = new Set();
  for (const d of docs) {
    const v = valueAt(d, path);
    if (isObject(v)) for (const k of Object.keys(v)) keys.add(k);
  }
  return [...keys];
}

/** The table columns: the leaf paths of the selection under `fields` and `meta` present in `docs`. */
function columnsFor(docs, selectionText) {
  let tree = null;
  try {
    tree = selectionText && selectionText.trim() !== "" ? selectionTree(selectionText) : null;
  } catch {
    tree = null;
  }
  const columns = new Map();
  const add = (path, node) => {
    if (node === null) {
      const keys = keysAt(docs, path);
      if (keys.length === 0 && path.length > 1) columns.set(path.join("\u0000"), path);
      for (const k of keys) columns.set([...path, k].join("\u0000"), [...path, k]);
      return;
    }
    for (const [name, child] of node) {
      // `*` over an array is each of its elements (valueAt maps them): `gallery/*/url`.
      if (name === "*" && docs.some((d) => Array.isArray(valueAt(d, path)))) {
        if (child === null) columns.set(path.join("\u0000"), path);
        else add(path, child);
      }
      for (const n of name === "*" ? keysAt(docs, path) : [name]) {
        if (child === null) columns.set([...path, n].join("\u0000"), [...path, n]);
        else add([...path, n], child);
      }
    }
  };
  for (const scope of SCOPES) {
    if (tree && !tree.has(scope)) continue;
    add([scope], tree ? tree.get(scope) : null);
  }
  return [...columns.values()].filter((path) => docs.some((d) => valueAt(d, path) !== undefined));
}

function columnLabel(path) {
  if (path[0] === "fields" && !["fields", "meta", "includes"].includes(path[1])) return path.slice(1).join("/");
  return path.join("/");
}

function cell(value) {
  if (value === undefined) return h("td", { className: "missing" }, "");
  if (value === null) return h("td", { className: "null" }, "null");
  if (typeof value === "number") return h("td", { className: "num" }, String(value));
  if (typeof value === "boolean") return h("td", { className: "bool" }, String(value));
  if (typeof value === "string") return h("td", { title: value.length > 60 ? value : "" }, value);
  const json = JSON.stringify(value);
  return h("td", { className: "json-cell", title: json.length > 60 ? json : "" }, h("code", {}, json));
}

function renderTable(container, docs, selectionText, caption) {
  const columns = columnsFor(docs, selectionText);
  const table = h(
    "table",
    { className: "docs" },
    h("caption", { className: "visually-hidden" }, `${caption}: ${docs.length} row${docs.length === 1 ? "" : "s"}`),
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        h("th", { scope: "col", className: "rownum" }, "#"),
        columns.map((path) => h("th", { scope: "col", title: path.join("/"), className: path[0] === "meta" ? "meta-col" : "" }, columnLabel(path))),
      ),
    ),
    h(
      "tbody",
      {},
      docs.map((d, i) => {
        const id = d?.meta?.id;
        return h(
          "tr",
          { dataset: id !== undefined ? { id: String(id) } : {} },
          h("td", { className: "rownum" }, String(i + 1)),
          columns.map((path) => cell(valueAt(d, path))),
        );
      }),
    ),
  );
  container.replaceChildren(docs.length === 0 ? h("p", { className: "hint" }, "No documents.") : table);
  show(container, true);
}

/* ------------------------------------------------------------------------ */
/* Copy buttons                                                              */
/* ------------------------------------------------------------------------ */

async function copy(text, button) {
  let ok = false;
  try {
    await navigator.clipboard.writeText(text);
    ok = true;
  } catch {
    const area = h("textarea", { value: text, readOnly: true, className: "offscreen" });
    document.body.append(area);
    area.select();
    try {
      ok = document.execCommand("copy");
    } catch {
      ok = false;
    }
    area.remove();
  }
  const label = button.textContent;
  button.textContent = ok ? "Copied ✓" : "Copy failed";
  announce(ok ? "Copied to the clipboard." : "Could not copy: select the text and copy it by hand.");
  setTimeout(() => {
    button.textContent = label;
  }, 1500);
}
$("copy-url").addEventListener("click", () => copy($("request-url").textContent, $("copy-url")));
$("copy-curl").addEventListener("click", () => copy($("curl").textContent, $("copy-curl")));

/* ------------------------------------------------------------------------ */
/* The local panel (only when the SDK exports applyQuery)                    */
/* ------------------------------------------------------------------------ */

function updateLocalNote(b) {
  if (!hasLocal) return;
  const base = state.lastList;
  const notes = [];
  if (!base) {
    $("local-base").textContent = "No list yet: send a list request (all documents or a collection), or fetch the complete list.";
  } else {
    $("local-base").replaceChildren(
      "Input: the last list, ",
      h("code", {}, base.label),
      `, ${base.count} of ${base.total} documents${base.selection !== undefined ? " fetched with " : ""}`,
      base.selection !== undefined ? h("code", {}, `fields=${base.selection}`) : "",
      ".",
    );
    if (!base.complete) notes.push(`The last results are ${base.count} of ${base.total} documents: the local answer orders only those, so it is comparable with the server only for a complete list (send with a limit covering ${base.total}, or fetch the complete list).`);
    if (base.selection !== undefined && base.selection !== "*") notes.push("They were fetched with a selection: fields outside it are missing locally, so sorting or selecting on them differs from the server.");
  }
  if (base && b && b.query.limitValue === undefined) notes.push(`No limit set: the server answers ${SERVICE_DEFAULT_LIMIT} documents, so the local answer is cut to ${SERVICE_DEFAULT_LIMIT} too.`);
  $("local-note").replaceChildren(...notes.map((n) => h("span", { className: "note-line" }, n)));
  show($("local-note"), notes.length > 0);
}

/** The first difference between two JSON values, or `null` when they are equal. */
function firstDifference(a, b, path) {
  if (a === b) return null;
  const kind = (v) => (Array.isArray(v) ? "array" : v === null ? "null" : typeof v);
  if (kind(a) !== kind(b)) return { path, local: a, server: b };
  if (Array.isArray(a)) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      const d = firstDifference(a[i], b[i], `${path}[${i}]`);
      if (d) return d;
    }
    return a.length === b.length ? null : { path: `${path}.length`, local: a.length, server: b.length };
  }
  if (isObject(a)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    for (const k of keys) {
      const p = `${path}.${k}`;
      if (!Object.hasOwn(a, k) || !Object.hasOwn(b, k)) return { path: p, local: a[k], server: b[k] };
      const d = firstDifference(a[k], b[k], p);
      if (d) return d;
    }
    return null;
  }
  return { path, local: a, server: b };
}

const brief = (v) => {
  if (v === undefined) return "(missing)";
  const text = JSON.stringify(v);
  return text.length > 80 ? `${text.slice(0, 77)}…` : text;
};

function localCheck(mark, text, className) {
  $("local-status").replaceChildren(h("span", { id: "local-check", className: `check-mark ${className}`, "aria-hidden": "true" }, mark), " ", text);
}

async function applyLocal() {
  const b = update();
  const base = state.lastList;
  if (!base) {
    localCheck("", "Send a list request first.", "");
    return;
  }
  const blocking = b.errors.fields || [...b.errors.sort.values()].find((e) => !e.soft) || b.errors.limit || b.errors.offset;
  if (blocking) {
    localCheck("", `Fix the query first: ${blocking.message}`, "");
    return;
  }
  let query = b.query;
  if (query.limitValue === undefined) query = query.clone().limit(SERVICE_DEFAULT_LIMIT);

  let local;
  const started = performance.now();
  try {
    local = sdk.applyQuery(base.list, query);
  } catch (error) {
    localCheck("✗", `${error.code ?? "error"}: ${error.message}`, "bad");
    return;
  }
  const ms = performance.now() - started;
  renderTable($("local-table"), local.data, b.selectionText, "Documents ordered locally");
  const timing = `Applied locally in ${formatMs(ms)} ms: ${local.data.length} documents.`;

  if (!base.complete) {
    localCheck("–", `${timing} Not compared: the input is not a complete list.`, "");
    return;
  }
  // The comparison asks the endpoint the input came from: the endpoint picker does not matter.
  if (b.errors.connection || b.errors.keyMissing || b.errors.key) {
    localCheck("–", `${timing} Not compared: ${b.errors.keyMissing ? "enter an API key" : "fix the connection"} to ask the server.`, "");
    return;
  }
  const controller = new AbortController();
  setPending(controller);
  localCheck("…", `${timing} Asking the server the same query…`, "");
  let client = null;
  try {
    client = pageClient(b);
    const t0 = performance.now();
    const server = await call(client, base.kind, base.target, query, { signal: controller.signal });
    const serverMs = performance.now() - t0;
    const diff = firstDifference(local.data, server.data, "data");
    const via = server.source === "cache" ? `from the SDK's cache${server.stale ? ", stale" : ""}` : "over the network";
    if (!diff) localCheck("✓", `${timing} Equal to the server's answer (${formatMs(serverMs)} ms ${via}).`, "good");
    else localCheck("✗", `${timing} Differs from the server's answer at ${diff.path}: local ${brief(diff.local)}, server ${brief(diff.server)}.`, "bad");
  } catch (error) {
    localCheck("✗", `${timing} The comparison request failed: ${error.code ?? "error"}${error.status ? ` ${error.status}` : ""}: ${error.message}`, "bad");
  } finally {
    setPending(null);
    settled(client);
    renderCacheSize();
  }
}

/** Fetches every page of the current list endpoint, without sorting or selection, as the local input. */
async function fetchComplete() {
  const b = update();
  if (b.kind !== "documents" && b.kind !== "collection") {
    localCheck("", "Pick all documents or a collection to fetch a complete list.", "");
    return;
  }
  // Sorting, selection, limit and offset are not used here: only the connection matters.
  if (b.errors.connection || b.errors.keyMissing || b.errors.key || b.errors.target) {
    localCheck("", b.blocking ?? "Fix the connection first.", "");
    return;
  }
  const controller = new AbortController();
  setPending(controller);
  announce("Fetching the complete list…");
  const started = performance.now();
  let client = null;
  try {
    client = pageClient(b);
    // `all` records the pages it fetches in the cache (under cache-only, the
    // cache answers it).
    const list = await client.all(b.endpoint, new Query().limit(1000), { signal: controller.signal, maxPages: 50 });
    const ms = performance.now() - started;
    showResult(list, { ms, selectionText: "", source: list?.source ?? "network", stale: list?.stale });
    state.lastList = {
      kind: b.kind,
      target: b.target,
      label: b.kind === "documents" ? "documents" : `collections/${b.target}`,
      list,
      selection: undefined,
      count: list.data.length,
      total: list.data.length,
      complete: true,
    };
    announce(`Fetched the complete list in ${formatMs(ms)} ms: ${list.data.length} documents.`);
    localCheck("", "The complete list is the local input now.", "");
  } catch (error) {
    showError(error, performance.now() - started);
    announce(`Failed: ${error?.code ?? "error"}${error?.status ? ` ${error.status}` : ""}.`);
  } finally {
    setPending(null);
    settled(client);
    renderCacheSize();
  }
}

if (hasLocal) {
  show($("local-panel"), true);
  $("apply-local").addEventListener("click", applyLocal);
  $("fetch-complete").addEventListener("click", fetchComplete);
}

/* ------------------------------------------------------------------------ */
/* The offline cache: the page client, prefetch, the Offline switch          */
/* ------------------------------------------------------------------------ */

const POLICY_HINTS = {
  "network-first": "Asks the service; answers from the cache only when the network fails (a network error, a timeout, 429 or 5xx), marked stale. Offline, a request the cache can answer is answered at once, without retries; one it cannot spends its retries, then fails.",
  "cache-first": "Answers from the cache when it can, without a request; otherwise asks the service.",
  "stale-while-revalidate": "Answers from the cache when it can and refreshes it from the service in the background; otherwise asks the service.",
  "cache-only": "Never asks the service: the cache answers, or the call fails with not_cached. (Make available offline still fetches.)",
};
const OFFLINE_MESSAGE = "offline (simulated by the playground)";

/** Bytes the page client received (bodies), to show what a refresh costs against a prefetch. */
const traffic = { bytes: 0, prefetched: new Map() };

/** The `fetch` of the page client while online: the browser's, counting the bytes of each body. */
async function countingFetch(input, init) {
  const response = await fetch(input, init);
  const text = await response.text();
  traffic.bytes += new TextEncoder().encode(text).length;
  return new Response(text, { status: response.status, statusText: response.statusText, headers: response.headers });
}

const formatBytes = (bytes) => (bytes < 1024 ? `${bytes} B` : bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KiB` : `${(bytes / 1024 / 1024).toFixed(2)} MiB`);

/** The `fetch` of the page client while the Offline switch is on: a browser without a network rejects with a TypeError too. */
const offlineFetch = () => Promise.reject(new TypeError(OFFLINE_MESSAGE));

const currentPolicy = () => $("cache-policy").value;
/** The cache policy and the Offline switch, as the results show them. */
const cacheMode = () => ({ policy: currentPolicy(), offline: $("offline-toggle").checked });
const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

function reportCacheError(error) {
  offline.errors.push({ code: error?.code ?? "error", message: String(error?.message ?? error), at: new Date() });
  if (offline.errors.length > 5) offline.errors.splice(0, offline.errors.length - 5);
  $("cache-error-list").replaceChildren(
    ...offline.errors.map((e) =>
      h("li", {}, h("span", { className: "code" }, e.code), " ", e.message, " ", h("span", { className: "muted" }, e.at.toLocaleTimeString())),
    ),
  );
  show($("cache-errors"), true);
}

/**
 * The client every request of the page uses: the connection and key of the
 * form, an offline cache (IndexedDB, the chosen policy), and while the
 * Offline switch is on a `fetch` that always fails. Made again when any of
 * these change; `null` while the connection or the key is invalid.
 */
function pageClient(b) {
  if (!b.client || b.errors.connection || b.errors.keyMissing || b.errors.key) return null;
  const policy = currentPolicy();
  const offlineOn = $("offline-toggle").checked;
  const key = JSON.stringify([b.client.baseUrl, b.client.repositoryName, b.apiKey, policy, offlineOn]);
  if (offline.client && offline.key === key) return offline.client;
  const options = {
    baseUrl: $("base-url").value.trim(),
    repository: $("repository").value.trim(),
    apiKey: b.apiKey,
    onCacheError: reportCacheError,
    fetch: offlineOn ? offlineFetch : countingFetch,
  };
  let client;
  try {
    client = new Client({ ...options, cache: { storage: "indexeddb", policy } });
    offline.storage = "indexeddb";
    offline.storageNote = "";
  } catch (error) {
    // No IndexedDB here (some private modes): the cache lives in memory.
    client = new Client({ ...options, cache: { storage: "memory", policy } });
    offline.storage = "memory";
    offline.storageNote = error?.message ?? String(error);
  }
  offline.client = client;
  offline.key = key;
  renderCacheWhere(b);
  renderCacheSize();
  client.cache.ready().then(renderCacheSize);
  return client;
}

/**
 * Called when an operation on `client` ended: if the page client was made
 * again meanwhile, it loaded its cache before that operation wrote to
 * storage, so it is dropped and the next one loads everything.
 */
function settled(client) {
  if (!client || offline.client === client) return;
  offline.client = null;
  offline.key = "";
  pageClient(build());
}

function renderCacheSize() {
  const client = offline.client;
  const busy = offline.prefetching !== null;
  $("clear-cache").disabled = !client || busy;
  if (!client) {
    $("cache-size").textContent = "No cache open: it opens with a valid connection and API key.";
    delete $("cache-size").dataset.size;
    return;
  }
  const size = client.cache.size;
  $("cache-size").textContent = `${plural(size, "document")} cached`;
  $("cache-size").dataset.size = String(size);
}

function renderCacheWhere(b) {
  const where =
    offline.storage === "indexeddb"
      ? ["Kept in this browser's IndexedDB (database ", h("code", {}, `content-repo:${b.client.baseUrl}/v1/${b.client.repositoryName}`), "): it survives a reload. The key is never stored."]
      : [`Kept in memory only, lost on reload: ${offline.storageNote}`];
  $("cache-where").replaceChildren(...where);
}

function renderOfflineMode() {
  const on = $("offline-toggle").checked;
  const policy = currentPolicy();
  show($("offline-banner"), on);
  $("offline-banner-policy").textContent = `(policy ${policy})`;
  $("cache-policy-hint").textContent = POLICY_HINTS[policy] ?? "";
  document.body.classList.toggle("offline", on);
  document.body.dataset.offline = String(on);
}

/** Reads the page size input: an integer 1..1000, or an error message. */
function pageSize() {
  const input = $("page-size");
  const value = numberInput(input);
  if (value === null) return { value: 1000 };
  if (!Number.isInteger(value) || value < 1 || value > 1000) return { error: "The page size is an integer from 1 to 1000." };
  return { value };
}

/** What "Make available offline" would fetch, or why it cannot. */
function offlineTarget(b) {
  if (b.errors.connection) return { reason: "Fix the connection first." };
  if (b.errors.keyMissing) return { reason: "Enter an API key first." };
  if (b.errors.key) return { reason: "Fix the API key first." };
  if (b.kind !== "documents" && b.kind !== "collection")
    return { reason: "Only a list can be made available offline: choose All documents or A collection. (A single document is cached when it is sent.)" };
  if (b.errors.target) return { reason: "Enter a valid collection API id first." };
  const size = pageSize();
  if (size.error) return { reason: "Fix the page size first." };
  const label = b.kind === "documents" ? "documents" : `collections/${b.target}`;
  return { endpoint: b.kind === "documents" ? { documents: true } : { collection: b.target }, label, pageSize: size.value };
}

/** Refreshes the Offline panel's controls (from `update`). */
function updateOffline(b) {
  const size = pageSize();
  fieldError($("page-size-error"), size.error, $("page-size"));
  const target = offlineTarget(b);
  const busy = offline.prefetching !== null;
  $("make-offline").disabled = busy || Boolean(target.reason);
  $("refresh-offline").disabled = busy || Boolean(target.reason);
  $("cancel-offline").disabled = !busy;
  if (!busy) {
    $("offline-note").replaceChildren(
      ...(target.reason ? [target.reason] : ["Fetches every document of ", h("code", {}, target.label), ` into the cache, ${target.pageSize} a request.`]),
    );
  }
  // Without a valid connection and key there is no page client (nor cache).
  if (offline.client && (b.errors.connection || b.errors.keyMissing || b.errors.key)) {
    offline.client = null;
    offline.key = "";
  }
  renderCacheSize();
}

function progress(loaded, total) {
  const bar = $("prefetch-bar");
  if (total === undefined) {
    bar.removeAttribute("value");
    bar.removeAttribute("aria-valuetext");
    $("prefetch-text").textContent = "starting…";
    return;
  }
  bar.max = Math.max(total, 1);
  bar.value = loaded;
  bar.setAttribute("aria-valuetext", `${loaded} of ${total} documents`);
  $("prefetch-text").textContent = `${loaded} / ${total}`;
  $("prefetch-bar").dataset.loaded = String(loaded);
  $("prefetch-bar").dataset.total = String(total);
}

async function makeAvailableOffline() {
  const b = update();
  const target = offlineTarget(b);
  if (target.reason || offline.prefetching) return;
  const controller = new AbortController();
  offline.prefetching = controller;
  const client = pageClient(b);
  let last = { loaded: 0, total: undefined };
  let requests = 0;
  show($("prefetch-progress"), true);
  progress(0, undefined);
  $("offline-status").textContent = "";
  $("offline-note").replaceChildren("Fetching every document of ", h("code", {}, target.label), "…");
  update();
  renderCacheSize();
  $("cancel-offline").focus();
  const started = performance.now();
  const bytesBefore = traffic.bytes;
  try {
    const done = await client.prefetch(target.endpoint, {
      pageSize: target.pageSize,
      signal: controller.signal,
      onProgress: ({ loaded, total }) => {
        requests++;
        last = { loaded, total };
        progress(loaded, total);
      },
    });
    if (done.loaded !== last.loaded || done.total !== last.total) progress(done.loaded, done.total);
    const bytes = traffic.bytes - bytesBefore;
    traffic.prefetched.set(target.label, bytes);
    $("offline-status").replaceChildren(
      "Available offline: ",
      h("code", {}, target.label),
      `, ${plural(done.loaded, "document")} in ${plural(requests, "request")}, ${formatBytes(bytes)} (${formatMs(performance.now() - started)} ms). Any sorting and selection of it is now answered from the cache.`,
    );
  } catch (error) {
    const code = error?.code ?? "error";
    const fetched = last.total === undefined ? "before the first page" : `after ${last.loaded} of ${last.total} documents`;
    $("offline-status").textContent =
      code === "aborted"
        ? `Cancelled ${fetched}. The pages fetched are cached under their URLs, but the list is not complete, so other queries of it are not answered offline.`
        : `Failed ${fetched}: ${code}${error?.status ? ` ${error.status}` : ""}: ${error?.message ?? error}`;
  } finally {
    offline.prefetching = null;
    update();
    settled(client);
    renderCacheSize();
    if (document.activeElement === $("cancel-offline") || document.activeElement === document.body) $("make-offline").focus();
  }
}

/** Brings the prefetched list up to date with `client.refresh`, showing the counts and the bytes it cost. */
async function refreshOffline() {
  const b = update();
  const target = offlineTarget(b);
  if (target.reason || offline.prefetching) return;
  const controller = new AbortController();
  offline.prefetching = controller;
  const client = pageClient(b);
  $("offline-status").textContent = "Refreshing…";
  update();
  const started = performance.now();
  const bytesBefore = traffic.bytes;
  try {
    const done = await client.refresh(target.endpoint, { signal: controller.signal });
    const bytes = traffic.bytes - bytesBefore;
    const full = traffic.prefetched.get(target.label);
    const share = full ? ` (${((100 * bytes) / full).toFixed(1)}% of the prefetch's ${formatBytes(full)})` : "";
    const status = $("offline-status");
    status.replaceChildren(
      "Refreshed ",
      h("code", {}, target.label),
      `: ${done.changed} changed, ${done.deleted} deleted, ${plural(done.total, "document")} in the list; ${formatBytes(bytes)} transferred${share} in ${formatMs(performance.now() - started)} ms.`,
    );
    Object.assign(status.dataset, { changed: String(done.changed), deleted: String(done.deleted), total: String(done.total), bytes: String(bytes) });
  } catch (error) {
    const code = error?.code ?? "error";
    $("offline-status").textContent =
      code === "not_cached" && /prefetch it before refreshing it/.test(error?.message ?? "")
        ? `Nothing to refresh: make ${target.label} available offline first.`
        : `The refresh failed: ${code}${error?.status ? ` ${error.status}` : ""}: ${error?.message ?? error}`;
  } finally {
    offline.prefetching = null;
    update();
    settled(client);
    renderCacheSize();
  }
}

async function clearCache() {
  const client = pageClient(build());
  if (!client || offline.prefetching) return;
  try {
    await client.cache.clear();
    $("offline-status").textContent = "Cache cleared.";
    show($("prefetch-progress"), false);
  } catch (error) {
    $("offline-status").textContent = `The cache could not be cleared: ${error?.code ?? "error"}: ${error?.message ?? error}`;
  }
  renderCacheSize();
}

/** Makes the page client again for the new policy or Offline switch. */
function modeChanged() {
  renderOfflineMode();
  const b = update();
  pageClient(b);
  renderCacheSize();
}

/* ------------------------------------------------------------------------ */
/* Wiring                                                                    */
/* ------------------------------------------------------------------------ */

for (const id of ["base-url", "repository", "target", "fields", "limit", "offset"]) $(id).addEventListener("input", update);
$("target").addEventListener("input", fillSuggestions);
$("api-key").addEventListener("input", () => {
  persistKey();
  update();
});
$("remember-key").addEventListener("change", persistKey);
$("page-size").addEventListener("input", update);
$("make-offline").addEventListener("click", makeAvailableOffline);
$("refresh-offline").addEventListener("click", refreshOffline);
$("cancel-offline").addEventListener("click", () => offline.prefetching?.abort());
$("clear-cache").addEventListener("click", clearCache);
$("offline-toggle").addEventListener("change", modeChanged);
$("cache-policy").addEventListener("change", modeChanged);
// Start online with the default policy (a reload may restore form controls).
$("offline-toggle").checked = false;
$("cache-policy").value = "network-first";
renderOfflineMode();

const badge = $("sdk-status");
badge.textContent = hasLocal ? "SDK loaded · local engine available" : "SDK loaded · local engine not in this build";
badge.classList.add("ok");
document.body.dataset.ready = "true";
document.body.dataset.local = String(hasLocal);

renderSortRows();
updateTarget();
update();
