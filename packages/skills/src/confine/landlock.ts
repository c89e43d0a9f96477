/**
 * A Landlock launcher (Linux ≥ 5.13) run with `python3 -c`: Landlock rules for file system writes
 * — separately for writing, creating and deleting, which mount options cannot do — then exec.
 * Python's ctypes needs no compiler and no package; Landlock needs no privilege.
 *
 * argv: `--probe` (exit 0 when Landlock can be enforced here), or
 * `[--rw DIR]… [--write-no-delete DIR]… [--file FILE]… -- COMMAND ARGS…`: writes of any kind
 * only beneath the `--rw` dirs; beneath `--write-no-delete` dirs files may be created and changed
 * but nothing may be removed or renamed away; `--file`s (devices such as /dev/null) may be
 * written; everywhere else no write at all. A path that does not exist is skipped.
 */
export const LANDLOCK_LAUNCHER = String.raw`
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
SYS_CREATE, SYS_ADD, SYS_RESTRICT = 444, 445, 446
abi = libc.syscall(SYS_CREATE, None, 0, 1)
if abi < 1:
    sys.stderr.write('baton: landlock unavailable (errno %d)\n' % ctypes.get_errno()); sys.exit(125)
WRITE_FILE, REMOVE_DIR, REMOVE_FILE = 1 << 1, 1 << 4, 1 << 5
MAKE = sum(1 << b for b in range(6, 13))
REFER = (1 << 13) if abi >= 2 else 0
TRUNCATE = (1 << 14) if abi >= 3 else 0
REMOVE = REMOVE_DIR | REMOVE_FILE | REFER
ALL = WRITE_FILE | MAKE | REMOVE | TRUNCATE
args = sys.argv[1:]
rules = []
while args and args[0] != '--':
    flag, path = args[0], args[1]; args = args[2:]
    rules.append((path, ALL if flag == '--rw' else ALL & ~REMOVE if flag == '--write-no-delete' else (WRITE_FILE | TRUNCATE) if flag == '--file' else None))
    if rules[-1][1] is None:
        sys.stderr.write('baton: bad landlock flag %s\n' % flag); sys.exit(125)
class RulesetAttr(ctypes.Structure):
    _fields_ = [('handled_access_fs', ctypes.c_uint64)]
class PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [('allowed_access', ctypes.c_uint64), ('parent_fd', ctypes.c_int32)]
attr = RulesetAttr(ALL)
rfd = libc.syscall(SYS_CREATE, ctypes.byref(attr), ctypes.sizeof(attr), 0)
if rfd < 0:
    sys.stderr.write('baton: landlock_create_ruleset failed (errno %d)\n' % ctypes.get_errno()); sys.exit(125)
for path, access in rules:
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        continue

    rule = PathBeneath(access, fd)
    if libc.syscall(SYS_ADD, rfd, 1, ctypes.byref(rule), 0) != 0:
        sys.stderr.write('baton: landlock_add_rule %s failed (errno %d)\n' % (path, ctypes.get_errno())); sys.exit(125)
    os.close(fd)
if libc.prctl(38, 1, 0, 0, 0) != 0 or libc.syscall(SYS_RESTRICT, rfd, 0) != 0:
    sys.stderr.write('baton: landlock_restrict_self failed (errno %d)\n' % ctypes.get_errno()); sys.exit(125)
os.close(rfd)
if not args:
    sys.exit(0)
cmd = args[1:]
if not cmd:
    sys.exit(0)
try:
    os.execvp(cmd[0], cmd)
except OSError as e:
    sys.stderr.write('baton: cannot start %s: %s\n' % (cmd[0], e)); sys.exit(127)
`;

/** argv that runs `command args` under Landlock write rules (see {@link LANDLOCK_LAUNCHER}). */
export function landlockArgs(o: { rw: readonly string[]; writeNoDelete: readonly string[]; command: string; args: readonly string[] }): {
  command: string;
  args: string[];
} {
  return {
    command: 'python3',
    args: [
      '-I',
      '-S',
      '-c',
      LANDLOCK_LAUNCHER,
      ...o.rw.flatMap((d) => ['--rw', d]),
      ...o.writeNoDelete.flatMap((d) => ['--write-no-delete', d]),
      ...WRITABLE_DEVICES.flatMap((d) => ['--file', d]),
      '--',
      o.command,
      ...o.args,
    ],
  };
}

/** Devices every program may write (shell redirections to /dev/null and the like). */
const WRITABLE_DEVICES = ['/dev/null', '/dev/zero', '/dev/full', '/dev/tty'] as const;

/** argv of the probe: restricts itself with an empty rule set and exits 0 when Landlock works here. */
export function landlockProbeArgs(): { command: string; args: string[] } {
  return { command: 'python3', args: ['-I', '-S', '-c', LANDLOCK_LAUNCHER] };
}
