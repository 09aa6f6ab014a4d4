// Fast Apply for VS Code: starts `fastapply lsp` and adds two commands that send the clipboard
// as an edit snippet for the active file. The server merges against the text VS Code has synced
// (unsaved changes included) and applies the result itself with workspace/applyEdit.
import * as vscode from "vscode";
import { ExecuteCommandRequest, LanguageClient, LanguageClientOptions, ServerOptions } from "vscode-languageclient/node";

import { ApplySummary, applyArguments, describeResult, previewTitle, readSettings, serverExecutable } from "./core";

const PREVIEW_SCHEME = "fastapply-preview";

let client: LanguageClient | undefined;
const previews = new Map<string, string>();

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  context.subscriptions.push(
    vscode.workspace.registerTextDocumentContentProvider(PREVIEW_SCHEME, {
      provideTextDocumentContent: (uri: vscode.Uri): string => previews.get(uri.toString()) ?? "",
    }),
    vscode.commands.registerCommand("fastApply.applyClipboard", applyClipboard),
    vscode.commands.registerCommand("fastApply.previewClipboard", previewClipboard),
  );
  client = createClient();
  await client.start();
}

export async function deactivate(): Promise<void> {
  await client?.stop();
}

function createClient(): LanguageClient {
  const config = vscode.workspace.getConfiguration("fastApply");
  const { command, args } = serverExecutable(config.get("serverCommand"));
  const serverOptions: ServerOptions = { command, args };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [{ scheme: "file" }, { scheme: "untitled" }],
    initializationOptions: { fastApply: readSettings(config) },
    synchronize: { configurationSection: "fastApply" },
  };
  return new LanguageClient("fastApply", "Fast Apply", serverOptions, clientOptions);
}

/** Run fastApply.apply or fastApply.preview on the active editor with the clipboard as the snippet. */
async function runOnActiveEditor(command: string): Promise<{ editor: vscode.TextEditor; result: ApplySummary } | undefined> {
  const editor = vscode.window.activeTextEditor;
  if (!editor || !client) {
    void vscode.window.showErrorMessage("Fast Apply: open the file to edit first");
    return undefined;
  }
  try {
    const uri = client.code2ProtocolConverter.asUri(editor.document.uri);
    const argument = applyArguments(uri, await vscode.env.clipboard.readText());
    const result = (await client.sendRequest(ExecuteCommandRequest.type, { command, arguments: [argument] })) as ApplySummary;
    return { editor, result };
  } catch (error) {
    void vscode.window.showErrorMessage(`Fast Apply: ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  }
}

async function applyClipboard(): Promise<void> {
  const outcome = await runOnActiveEditor("fastApply.apply");
  if (!outcome) {
    return;
  }
  const message = describeResult(outcome.result);
  if (message.level === "info") {
    void vscode.window.showInformationMessage(message.text);
  } else {
    void vscode.window.showWarningMessage(message.text);
  }
}

async function previewClipboard(): Promise<void> {
  const outcome = await runOnActiveEditor("fastApply.preview");
  if (!outcome) {
    return;
  }
  const { editor, result } = outcome;
  if (result.status !== "ok" || typeof result.merged !== "string") {
    void vscode.window.showWarningMessage(describeResult(result).text);
    return;
  }
  const previewUri = vscode.Uri.from({ scheme: PREVIEW_SCHEME, path: editor.document.uri.path, query: String(Date.now()) });
  previews.set(previewUri.toString(), result.merged);
  await vscode.commands.executeCommand("vscode.diff", editor.document.uri, previewUri, previewTitle(editor.document.uri.path));
}
