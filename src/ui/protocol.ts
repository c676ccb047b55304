import { z } from 'zod';
import { AuditSchema } from '../core/packet/auditSchema';
import { PacketSchema } from '../core/packet/schema';

/**
 * The message protocol between the handoff panel's host (src/ui/panel) and its webview script
 * (media/panel.ts). Both sides import this file and validate every incoming message with it: the
 * webview renders agent-written text, so neither side trusts what arrives over postMessage.
 * This file must stay free of `vscode` and Node imports — it is bundled into the browser script too.
 */

export const FreshnessViewSchema = z.object({
  stale: z.boolean(),
  reasons: z.array(z.string()),
  commitsBehind: z.number().int().optional(),
});

export const AckViewSchema = z.object({ id: z.string(), by: z.string(), at: z.string() });

/** The panel's buttons; the host says which apply to the packet shown (an archived one: Generate only). */
export const PANEL_ACTIONS = ['copyPrompt', 'copyAsNewTask', 'copyJson', 'copyPrSummary', 'trustPacket', 'openMarkdown', 'regenerate', 'generate'] as const;
export type PanelAction = (typeof PANEL_ACTIONS)[number];

/** Everything the webview needs to draw one packet; built by the host from the UI state. */
export const PanelModelSchema = z.object({
  packet: PacketSchema,
  /** Absolute directory of the packet (shown as a hint; opening files goes through the host). */
  packetDir: z.string(),
  freshness: FreshnessViewSchema.nullable(),
  acks: z.array(AckViewSchema),
  /** The workspace folder's name, for the title. */
  folderName: z.string(),
  /** The workspace folder's URI, kept in the webview state so a reload restores the same folder. */
  folderUri: z.string(),
  /** True when the user opened this particular packet; false when the panel follows the active one. */
  pinned: z.boolean(),
  /** Where the packet's facts came from, in one line ("From Claude Code session 7f3e2a91 (…)"). */
  derivedFrom: z.string().default(''),
  /** The completeness audit of the packet (what a fresh agent needs), when the host computed it. */
  audit: AuditSchema.optional(),
  /** The buttons to offer, in toolbar order. */
  actions: z.array(z.enum(PANEL_ACTIONS)),
  /** Epoch ms when handoff.json was written (its mtime), or null when unknown. */
  writtenAt: z.number().nullable(),
});
export type PanelModel = z.infer<typeof PanelModelSchema>;

/** What the panel shows when there is no packet to render (no packet yet, untrusted, …). */
export const PanelEmptySchema = z.object({
  reason: z.string(),
  canGenerate: z.boolean(),
});
export type PanelEmpty = z.infer<typeof PanelEmptySchema>;

export const HostMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('render'), model: PanelModelSchema }),
  z.object({ type: z.literal('empty'), empty: PanelEmptySchema }),
  /** Acknowledges a copy so the button can say "Copied". */
  z.object({ type: z.literal('copied'), what: z.enum(['prompt', 'json', 'task', 'pr']) }),
  /** A short, user-facing failure for the last request (e.g. the file to open is gone). */
  z.object({ type: z.literal('failed'), message: z.string() }),
]);
export type HostMessage = z.infer<typeof HostMessageSchema>;

export const WebviewMessageSchema = z.discriminatedUnion('type', [
  /** Sent once the script has installed its listener: the host posts nothing before this. */
  z.object({ type: z.literal('ready') }),
  z.object({ type: z.literal('copyPrompt') }),
  /** Cline / Roo Code / Kilo Code: the prompt for the agent's new-task flow. */
  z.object({ type: z.literal('copyAsNewTask') }),
  z.object({ type: z.literal('copyJson') }),
  /** The packet as a short markdown summary for a pull request. */
  z.object({ type: z.literal('copyPrSummary') }),
  /** A packet not written here: trust it after review (a modal asks first). */
  z.object({ type: z.literal('trustPacket') }),
  z.object({ type: z.literal('openMarkdown') }),
  z.object({ type: z.literal('regenerate') }),
  z.object({ type: z.literal('generate') }),
  /** A changed file, relative to the repository root; the host refuses paths escaping the workspace. */
  z.object({ type: z.literal('openFile'), path: z.string().min(1).max(4096) }),
  /** A source the packet names (a session file, a workbench file) at its 1-based line; the host checks it. */
  z.object({ type: z.literal('openSource'), file: z.string().min(1).max(4096), line: z.number().int().min(1).max(100_000_000).nullable() }),
]);
export type WebviewMessage = z.infer<typeof WebviewMessageSchema>;

/** What the webview keeps via `setState`, so the serializer can restore the same packet after a reload. */
export const PanelStateSchema = z.object({
  folderUri: z.string().optional(),
  packetId: z.string().optional(),
});
export type PanelState = z.infer<typeof PanelStateSchema>;

/** Parses an incoming message; `null` for anything malformed (the caller logs and drops it). */
export function parseWebviewMessage(data: unknown): WebviewMessage | null {
  const r = WebviewMessageSchema.safeParse(data);
  return r.success ? r.data : null;
}

/** Parses a message from the host; `null` for anything malformed. */
export function parseHostMessage(data: unknown): HostMessage | null {
  const r = HostMessageSchema.safeParse(data);
  return r.success ? r.data : null;
}

/** Parses the persisted webview state; an unknown shape restores as "no particular packet". */
export function parsePanelState(data: unknown): PanelState {
  const r = PanelStateSchema.safeParse(data);
  return r.success ? r.data : {};
}
