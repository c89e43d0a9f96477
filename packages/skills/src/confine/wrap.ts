import path from 'node:path';
import { landlockArgs } from './landlock.js';
import type { ConfinementMechanism, SkillGrant } from './types.js';

/** bubblewrap flags every skill gets: own PID/IPC/UTS namespaces, read-only root, no capabilities. */
export function baseArgs(grant: { network: boolean }): string[] {
  return [
    '--die-with-parent',
    '--new-session',
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
    ...(grant.network ? [] : ['--unshare-net']),
    // Root inside the sandbox would otherwise keep CAP_SYS_ADMIN and could remount / read-write.
    '--cap-drop',
    'ALL',
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
  ];
}

/** util-linux `unshare` in front of a command: PID (and network) namespace, capabilities dropped. */
export function unshareArgs(grant: { network: boolean }): { command: string; args: string[] } {
  const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  return {
    command: 'unshare',
    args: [
      ...(asRoot ? [] : ['--user', '--map-root-user']),
      '--pid',
      '--fork',
      '--kill-child',
      '--mount-proc',
      '--ipc',
      ...(grant.network ? [] : ['--net']),
      '--',
      'setpriv',
      '--bounding-set=-all',
      '--inh-caps=-all',
      '--no-new-privs',
      '--',
    ],
  };
}

/** Options for {@link confineCommand}. */
export interface ConfineCommandOptions {
  mechanism: ConfinementMechanism;
  /** Landlock works here (write rules that tell writing from deleting). */
  landlock: boolean;
  command: string;
  args: string[];
  grant: SkillGrant;
  /** The workspace (a real path): the working directory; writable as `grant.workspace` says. */
  workspace: string;
  /** The skill's private scratch directory (a real path): always writable. */
  scratch: string;
  /** Further directories the deployment lets every skill write (real paths). */
  writablePaths?: readonly string[];
}

function isNode(command: string): boolean {
  return command === process.execPath || /^node(?:\.exe)?$/i.test(path.basename(command));
}

/** The workspace access a skill actually gets: write-without-delete only exists with Landlock. */
export function effectiveWorkspace(grant: SkillGrant, landlock: boolean): SkillGrant['workspace'] {
  return grant.workspace === 'write-no-delete' && !landlock ? 'read-only' : grant.workspace;
}

/**
 * The permission model's switch: `--permission` from Node 22.13 (Node 24 rejects the old name),
 * `--experimental-permission` before. Node skills run on this process's Node (`process.execPath`).
 */
const PERMISSION_FLAG = process.allowedNodeEnvironmentFlags.has('--permission') ? '--permission' : '--experimental-permission';

/**
 * Node's permission model for a Node entry point: reads anywhere, writes only where granted, no
 * child processes or workers unless `subprocess_exec` is declared (a child would escape the model).
 */
function nodePermissionArgs(o: ConfineCommandOptions, workspace: SkillGrant['workspace']): string[] {
  const writable = [o.scratch, ...(workspace !== 'read-only' ? [o.workspace] : []), ...(o.writablePaths ?? [])];
  return [
    PERMISSION_FLAG,
    '--allow-fs-read=*',
    // One entry per directory: Node 20 aborts (an assertion in its radix tree) when given both `d` and `d/*`.
    ...writable.map((d) => `--allow-fs-write=${path.join(d, '*')}`),
    ...(o.grant.childProcesses ? ['--allow-child-process', '--allow-worker'] : []),
  ];
}

/**
 * The argv that runs `command args` confined by `mechanism` (see the README's capability table).
 * bubblewrap: everything read-only but the scratch dir and what the grant opens, no network
 * without `network_outbound`, own PID namespace. unshare: PID and network namespaces. With
 * Landlock (any mechanism) writes are confined by path and deleting is told apart from writing;
 * without it, unshare and none confine writes of Node skills only (Node's permission model).
 */
export function confineCommand(o: ConfineCommandOptions): { command: string; args: string[] } {
  const workspace = effectiveWorkspace(o.grant, o.landlock);
  let inner = { command: o.command, args: o.args };
  if (o.mechanism !== 'bubblewrap' && isNode(o.command))
    inner = { command: o.command, args: [...nodePermissionArgs(o, workspace), ...o.args] };
  if (o.landlock) {
    inner = landlockArgs({
      rw: [o.scratch, ...(o.writablePaths ?? []), ...(workspace === 'read-write' ? [o.workspace] : [])],
      writeNoDelete: workspace === 'write-no-delete' ? [o.workspace] : [],
      command: inner.command,
      args: inner.args,
    });
  }
  if (o.mechanism === 'bubblewrap') {
    const binds = [
      ...(workspace === 'read-only' ? ['--ro-bind', o.workspace, o.workspace] : ['--bind', o.workspace, o.workspace]),
      ...(o.writablePaths ?? []).flatMap((d) => ['--bind', d, d]),
      '--bind',
      o.scratch,
      o.scratch,
    ];
    return { command: 'bwrap', args: [...baseArgs(o.grant), ...binds, '--chdir', o.workspace, '--', inner.command, ...inner.args] };
  }
  if (o.mechanism === 'unshare') {
    const u = unshareArgs(o.grant);
    return { command: u.command, args: [...u.args, inner.command, ...inner.args] };
  }
  return inner;
}
