// The fixture server's test controls (www/server.mjs, `control: true`), for
// the shared request cases: the same client in Node and in the browser page.

/** `{ script, requests, reset }` of the fixture server at `baseUrl`; a control call that fails throws. */
export function fixtureControl(baseUrl) {
  const base = baseUrl.replace(/\/$/, "");
  const call = async (path, body) => {
    const init = body === undefined ? {} : { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) };
    let response;
    try {
      response = await fetch(base + path, init);
    } catch {
      // Once more (on a new connection): a kept-alive one can be closed by
      // the server just as it is reused, after a test that held the event
      // loop for seconds (every control call is idempotent).
      response = await fetch(base + path, init);
    }
    if (!response.ok) throw new Error(`${path}: ${response.status}`);
    return response.json();
  };
  return {
    script: (script) => call("/__fixture/script", script),
    requests: () => call("/__fixture/requests"),
    reset: () => call("/__fixture/reset", {}),
  };
}
