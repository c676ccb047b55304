import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { atomicWrite } from '../../core/fsx';
import type { Packet } from '../../core/packet/schema';
import { packetHash } from '../../core/registry/ownership';
import { ownedOrUnknown, trustPacket } from '../../core/registry/trustPacket';
import { exportPacket, matchCheckout, MAX_EXPORT_BYTES, readExport, writeImported } from '../../core/workflow/exchange';
import { outputDirOf } from '../../core/workflow/paths';
import { readPackets } from '../../core/workflow/readPackets';
import { createGitClient } from '../../git/gitClient';
import { DIR_FLAGS, JSON_FLAG, optionsOf, workspaceDirOf } from '../common';
import { currentOrExplain } from '../current';
import type { CommandSpec } from '../types';
import { EXIT_OK, EXIT_REFUSED, UsageError } from '../types';

/** `12 345 bytes (12.1 KB)`: the size people judge "small enough to paste" by. */
export function sizeText(bytes: number): string {
  return bytes < 1024 ? `${bytes} bytes` : `${bytes} bytes (${(bytes / 1024).toFixed(1)} KB)`;
}

/** `handoff export`: one self-contained, redacted file of the packet, with its digest, to carry elsewhere. */
export const exportCommand: CommandSpec = {
  name: 'export',
  summary: 'write the packet as one self-contained, redacted file (with its digest) to continue on another machine or with a teammate',
  usage: 'export [--out FILE] [--id PACKET_ID] [--dir DIR] [--output-dir DIR] [--json]',
  flags: [
    ...DIR_FLAGS,
    { name: 'out', type: 'string', placeholder: 'FILE', help: "where to write it (default: handoff-export.json in the packet's folder)" },
    { name: 'id', type: 'string', placeholder: 'PACKET_ID', help: 'the packet to export (default: the active packet of this branch, else the newest)' },
    JSON_FLAG,
  ],
  async run({ flags, io }) {
    const workspaceDir = await workspaceDirOf(flags, io);
    const options = optionsOf(flags);
    let stored: { dir: string; packet: Packet } | null;
    if (typeof flags['id'] === 'string') {
      const id = flags['id'];
      stored = (await readPackets(outputDirOf(workspaceDir, options))).packets.find((p) => p.packet.packet_id === id || path.basename(p.dir) === id) ?? null;
      if (!stored) {
        io.stderr(`handoff export: no packet ${id} in ${outputDirOf(workspaceDir, options)} (see handoff list --all)\n`);
        return EXIT_REFUSED;
      }
    } else {
      stored = (await currentOrExplain(workspaceDir, options, io))?.stored ?? null;
      if (!stored) return EXIT_REFUSED;
    }
    const outputDir = path.dirname(stored.dir);
    const own = typeof flags['out'] !== 'string';
    const out = own ? path.join(stored.dir, 'handoff-export.json') : path.resolve(io.cwd, flags['out'] as string);
    const { text, sha256, bytes } = exportPacket(stored.packet);
    // Never through a link (a committed `handoff-export.json` pointing at a dotfile), a FIFO or a folder;
    // the default place must really lie in the output dir.
    try {
      await atomicWrite(out, text, own ? { root: outputDir } : {});
    } catch (err) {
      io.stderr(`handoff export: ${(err as Error).message}\n`);
      return EXIT_REFUSED;
    }
    if (flags['json']) io.stdout(`${JSON.stringify({ file: out, packetId: stored.packet.packet_id, bytes, sha256 }, null, 2)}\n`);
    else io.stdout(`wrote ${out}: packet ${stored.packet.packet_id}, ${sizeText(bytes)}, sha256 ${sha256}\n`);
    return EXIT_OK;
  },
};

/** `handoff import FILE`: show what an export holds and how it matches this checkout; trust it only with --trust. */
export const importCommand: CommandSpec = {
  name: 'import',
  summary: 'read an export: what it holds and how it matches this checkout; --trust (after review) lets the next session use it',
  usage: 'import <FILE> [--trust] [--dir DIR] [--output-dir DIR] [--json]',
  flags: [
    ...DIR_FLAGS,
    { name: 'trust', type: 'boolean', help: 'record the packet as trusted here (only after reading it): SessionStart then hands it over while it is fresh' },
    JSON_FLAG,
  ],
  positionals: { min: 1, max: 1, names: 'one export file (written by handoff export)' },
  async run({ flags, positionals, io }) {
    const workspaceDir = await workspaceDirOf(flags, io);
    const file = path.resolve(io.cwd, positionals[0] as string);
    const st = await fs.stat(file).catch(() => null);
    if (!st?.isFile()) throw new UsageError(`no such file: ${file}`);
    if (st.size > MAX_EXPORT_BYTES) throw new UsageError(`${file} is larger than ${MAX_EXPORT_BYTES / 1024 / 1024} MiB: not a handoff export`);
    const read = readExport(await fs.readFile(file, 'utf8'), file);
    if (!read.ok) {
      io.stderr(`handoff import: refused: ${read.reason}\n`);
      return EXIT_REFUSED;
    }
    const { packet } = read;
    const git = createGitClient(workspaceDir);
    const match = await matchCheckout(packet, git);
    const refuseTrust = flags['trust'] === true && (match.remote === 'different' || match.branch === 'different');
    const written = await writeImported(outputDirOf(workspaceDir, optionsOf(flags)), packet);
    let trusted = false;
    if (flags['trust'] === true && !refuseTrust) {
      trusted = await trustPacket(written.packetDir, written.json);
      if (!trusted) io.stderr(`handoff import: the packet could not be recorded as trusted (is ${workspaceDir} in a git repository?)\n`);
    }
    if (flags['json']) {
      io.stdout(`${JSON.stringify({ packetId: packet.packet_id, packetDir: written.packetDir, sha256: read.sha256, match, trusted }, null, 2)}\n`);
    } else {
      const lines = [
        `Export ${file} (sha256 ${read.sha256}, digest checked)`,
        `Packet ${packet.packet_id}: session ${packet.session_id}, topic ${packet.topic}, branch ${packet.branch ?? '(none)'}, made at ${packet.head_commit?.slice(0, 7) ?? 'no commit'}`,
        `Next action: ${packet.next_action}`,
        `Holds: ${packet.changed_files.length} changed files, ${packet.failed_attempts.length} failed attempts, ${packet.open_risks.length} open risks, ${(packet.questions ?? []).length} open questions${packet.closing ? ', the closing words' : ''}`,
        '',
        `How it matches this checkout (${match.matches ? 'it matches' : 'it does NOT match'}):`,
        ...match.lines.map((l) => `  ${l}`),
        '',
        `${written.kind === 'written' ? 'Wrote' : 'Already here:'} ${written.packetDir}`,
        trusted
          ? 'Trusted here: the next session is handed this packet while it matches the branch and HEAD.'
          : refuseTrust
            ? 'NOT trusted: the packet is for another remote or branch; switch to its branch (or clone its remote) and import again.'
            : 'Not trusted yet: review it (handoff show), then run this again with --trust — or use Trust This Packet in the Handoffs view.',
      ];
      io.stdout(`${lines.join('\n')}\n`);
    }
    return refuseTrust || (flags['trust'] === true && !trusted) ? EXIT_REFUSED : EXIT_OK;
  },
};

/** `handoff trust <packet_id>`: a packet not written here (a teammate's, committed) trusted here after review. */
export const trustCommand: CommandSpec = {
  name: 'trust',
  summary: "trust a packet not written here (a teammate's, committed) after reading it: the next session is then handed it while it is fresh",
  usage: 'trust <packet_id|folder> [--dir DIR] [--output-dir DIR]',
  flags: [...DIR_FLAGS],
  positionals: { min: 1, max: 1, names: 'one packet id (see handoff list --all)' },
  async run({ flags, positionals, io }) {
    const workspaceDir = await workspaceDirOf(flags, io);
    const outputDir = outputDirOf(workspaceDir, optionsOf(flags));
    const id = positionals[0] as string;
    const { packets } = await readPackets(outputDir);
    // The folder is what was reviewed: a folder name picks exactly one; a packet id held by several
    // folders is refused rather than resolved by name order.
    const byFolder = packets.filter((p) => path.basename(p.dir) === id);
    const byId = packets.filter((p) => p.packet.packet_id === id);
    const candidates = byFolder.length ? byFolder : byId;
    if (candidates.length > 1) {
      const folders = candidates.map((p) => path.basename(p.dir)).join(', ');
      io.stderr(`handoff trust: ${candidates.length} folders hold packet ${id} (${folders}); name the one you reviewed: handoff trust <folder>\n`);
      return EXIT_REFUSED;
    }
    const stored = candidates[0];
    if (!stored) {
      io.stderr(`handoff trust: no packet ${id} in ${outputDir} (see handoff list --all)\n`);
      return EXIT_REFUSED;
    }
    if (await ownedOrUnknown(stored)) {
      io.stdout(`${id} was written here or is trusted already: nothing to do\n`);
      return EXIT_OK;
    }
    // The bytes read are the bytes trusted: a file changed after this point is not.
    const json = await fs.readFile(path.join(stored.dir, 'handoff.json'));
    if (stored.sha256 && packetHash(json) !== stored.sha256) {
      io.stderr(`handoff trust: ${id} changed while it was being read; read it again (handoff show) and trust it then\n`);
      return EXIT_REFUSED;
    }
    if (!(await trustPacket(stored.dir, json))) {
      io.stderr(`handoff trust: ${id} could not be recorded as trusted (is ${workspaceDir} in a git repository?)\n`);
      return EXIT_REFUSED;
    }
    const match = await matchCheckout(stored.packet, createGitClient(workspaceDir));
    io.stdout(`Trusted ${id} here. Its next action: ${stored.packet.next_action}\n${match.lines.map((l) => `  ${l}`).join('\n')}\n`);
    return EXIT_OK;
  },
};
