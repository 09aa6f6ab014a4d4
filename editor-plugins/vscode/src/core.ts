// The extension's pure parts: settings, the server command, command arguments and result messages.
// Nothing here imports `vscode`, so node's test runner checks it without an editor.

export type Engine = "auto" | "structural" | "model";
export type Device = "auto" | "cpu" | "cuda";

/** The `fastApply` settings section, as the language server reads it (camelCase keys). */
export interface FastApplySettings {
  engine: Engine;
  model: string | null;
  device: Device;
  serverUrl: string | null;
  apiKey: string | null;
}

/** The part of vscode.WorkspaceConfiguration this module reads. */
export interface ConfigSource {
  get<T>(key: string): T | undefined;
}

const ENGINES: readonly Engine[] = ["auto", "structural", "model"];
const DEVICES: readonly Device[] = ["auto", "cpu", "cuda"];

function oneOf<T extends string>(value: unknown, allowed: readonly T[], fallback: T): T {
  return allowed.includes(value as T) ? (value as T) : fallback;
}

function nonEmptyString(value: unknown): string | null {
  return typeof value === "string" && value.trim() !== "" ? value.trim() : null;
}

/** Settings for the server; unknown or blank values fall back to the defaults. */
export function readSettings(config: ConfigSource): FastApplySettings {
  return {
    engine: oneOf(config.get("engine"), ENGINES, "auto"),
    model: nonEmptyString(config.get("model")),
    device: oneOf(config.get("device"), DEVICES, "auto"),
    serverUrl: nonEmptyString(config.get("serverUrl")),
    apiKey: nonEmptyString(config.get("apiKey")),
  };
}

/** `fastApply.serverCommand` split into executable and arguments; a bad value is an Error that says so. */
export function serverExecutable(value: unknown): { command: string; args: string[] } {
  const parts = value ?? ["fastapply", "lsp"];
  if (!Array.isArray(parts) || parts.length === 0 || !parts.every((p) => typeof p === "string" && p !== "")) {
    throw new Error('fastApply.serverCommand must be a non-empty list of strings, e.g. ["fastapply", "lsp"]');
  }
  const [command, ...args] = parts as string[];
  return { command, args };
}

/** The single argument of the server's fastApply.apply / fastApply.preview commands. */
export interface ApplyArguments {
  uri: string;
  snippet: string;
  instruction?: string;
}

export function applyArguments(uri: string, snippet: string, instruction?: string): ApplyArguments {
  if (snippet.trim() === "") {
    throw new Error("the clipboard is empty: copy the edit snippet first");
  }
  return instruction ? { uri, snippet, instruction } : { uri, snippet };
}

export interface Reason {
  code?: string;
  message: string;
  line?: number | null;
}

/** What fastApply.apply answers (fastApply.preview adds `merged` and `diff`). */
export interface ApplySummary {
  applied: boolean;
  engine: string;
  status: "ok" | "ambiguous";
  edits?: number;
  reasons?: Reason[];
  stats?: { wall_ms?: number };
  merged?: string | null;
  diff?: string;
}

export interface UserMessage {
  level: "info" | "warning";
  text: string;
}

function describeReasons(reasons: Reason[] | undefined): string {
  const lines = (reasons ?? []).map((r) => (r.line ? `${r.message} (snippet line ${r.line})` : r.message));
  return lines.length > 0 ? `: ${lines.join("; ")}` : "";
}

/** The notification shown after fastApply.apply. */
export function describeResult(result: ApplySummary): UserMessage {
  if (result.status !== "ok") {
    return { level: "warning", text: `Fast Apply: ambiguous merge, file unchanged${describeReasons(result.reasons)}` };
  }
  if (!result.applied) {
    return { level: "warning", text: "Fast Apply: the editor did not apply the edit" };
  }
  const ms = Math.round(result.stats?.wall_ms ?? 0);
  const edits = result.edits ?? 0;
  const what = edits === 0 ? "no changes needed" : `${edits} edit${edits === 1 ? "" : "s"}`;
  return { level: "info", text: `Fast Apply: ${what} (${result.engine}, ${ms} ms)` };
}

/** Title of the preview diff editor, e.g. "greet.py ↔ Fast Apply". */
export function previewTitle(path: string): string {
  const name = path.split(/[\\/]/).pop() || path;
  return `${name} ↔ Fast Apply`;
}
