import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { applyArguments, ConfigSource, describeResult, previewTitle, readSettings, serverExecutable } from "../core";

function config(values: Record<string, unknown>): ConfigSource {
  return { get: <T>(key: string): T | undefined => values[key] as T | undefined };
}

describe("readSettings", () => {
  it("passes valid settings through with camelCase keys", () => {
    const settings = readSettings(
      config({ engine: "model", model: "smollm2-135m", device: "cpu", serverUrl: "http://127.0.0.1:8000", apiKey: "k" }),
    );
    assert.deepEqual(settings, {
      engine: "model",
      model: "smollm2-135m",
      device: "cpu",
      serverUrl: "http://127.0.0.1:8000",
      apiKey: "k",
    });
  });

  it("falls back to defaults for missing, unknown or blank values", () => {
    assert.deepEqual(readSettings(config({ engine: "telepathy", model: "  ", device: 3 })), {
      engine: "auto",
      model: null,
      device: "auto",
      serverUrl: null,
      apiKey: null,
    });
  });
});

describe("serverExecutable", () => {
  it("defaults to `fastapply lsp`", () => {
    assert.deepEqual(serverExecutable(undefined), { command: "fastapply", args: ["lsp"] });
  });

  it("splits a custom command", () => {
    assert.deepEqual(serverExecutable(["/venv/bin/python", "-m", "lsp"]), {
      command: "/venv/bin/python",
      args: ["-m", "lsp"],
    });
  });

  it("rejects a command that is not a list of strings", () => {
    assert.throws(() => serverExecutable("fastapply lsp"), /non-empty list of strings/);
    assert.throws(() => serverExecutable([]), /non-empty list of strings/);
    assert.throws(() => serverExecutable(["fastapply", ""]), /non-empty list of strings/);
  });
});

describe("applyArguments", () => {
  it("builds the server command's single argument", () => {
    assert.deepEqual(applyArguments("file:///a.py", "x = 1\n"), { uri: "file:///a.py", snippet: "x = 1\n" });
    assert.deepEqual(applyArguments("file:///a.py", "x = 1\n", "set x"), {
      uri: "file:///a.py",
      snippet: "x = 1\n",
      instruction: "set x",
    });
  });

  it("refuses an empty clipboard before asking the server", () => {
    assert.throws(() => applyArguments("file:///a.py", " \n\t"), /clipboard is empty/);
  });
});

describe("describeResult", () => {
  it("reports an applied merge with its edit count, engine and time", () => {
    const message = describeResult({ applied: true, engine: "structural", status: "ok", edits: 2, stats: { wall_ms: 12.4 } });
    assert.deepEqual(message, { level: "info", text: "Fast Apply: 2 edits (structural, 12 ms)" });
  });

  it("says when nothing needed changing", () => {
    const message = describeResult({ applied: true, engine: "structural", status: "ok", edits: 0 });
    assert.equal(message.text, "Fast Apply: no changes needed (structural, 0 ms)");
  });

  it("warns about an ambiguous merge with its reasons", () => {
    const message = describeResult({
      applied: false,
      engine: "structural",
      status: "ambiguous",
      reasons: [{ message: "no anchor for class Warehouse", line: 3 }, { message: "twin methods" }],
    });
    assert.equal(message.level, "warning");
    assert.equal(
      message.text,
      "Fast Apply: ambiguous merge, file unchanged: no anchor for class Warehouse (snippet line 3); twin methods",
    );
  });

  it("warns when the editor refused the edit", () => {
    assert.equal(describeResult({ applied: false, engine: "model", status: "ok" }).level, "warning");
  });
});

describe("previewTitle", () => {
  it("names the file, with either path separator", () => {
    assert.equal(previewTitle("/home/me/src/greet.py"), "greet.py ↔ Fast Apply");
    assert.equal(previewTitle("C:\\src\\greet.py"), "greet.py ↔ Fast Apply");
  });
});
