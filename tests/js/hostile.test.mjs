// Issue 14 in Node: the hostile cases of hostile-cases.mjs, with the real
// fixture server on 127.0.0.1 for the calls that must work afterwards, and
// process-level watchers for anything uncaught.
import { test, before, after, beforeEach } from "node:test";
import assert from "node:assert/strict";
import { startServer } from "../../www/server.mjs";
import { fixtureControl } from "./fixture-control.mjs";
import { cases as hostile } from "./hostile-cases.mjs";
import { dataCases } from "./data-cases.mjs";

const cases = { ...hostile, ...dataCases };

const sdk = await import("../../pkg/node/index.js");
const apiKey = "node-hostile-key-4321";
let server;
let env;

before(async () => {
  server = await startServer({ port: 0, apiKey, control: true });
  env = {
    baseUrl: server.url,
    apiKey,
    control: fixtureControl(server.url),
    watchUncaught() {
      const seen = [];
      const record = (error) => seen.push(error);
      process.on("uncaughtException", record);
      process.on("unhandledRejection", record);
      return () => {
        process.off("uncaughtException", record);
        process.off("unhandledRejection", record);
        return seen;
      };
    },
  };
});

after(() => server.close());
beforeEach(() => env.control.reset());

for (const [name, run] of Object.entries(cases)) {
  test(name, { timeout: 20_000 }, () => run(sdk, env));
}
