/**
 * Loaded into every test process of `npm test` (--import): when TEST_CPU_TIMES names a file, the
 * process adds one line to it at exit, `test file<TAB>CPU ms`, counting its own CPU and that of the
 * processes it started and waited for (servers, the CLI, Chromium): what the file costs the cores.
 */
import { appendFileSync, readFileSync } from 'node:fs';

const out = process.env.TEST_CPU_TIMES;
// Only the process of one file (node's runner marks them), not the runner over all files.
const file = process.env.NODE_TEST_CONTEXT ? process.argv.find((a) => /\.test\.m?[jt]s$/.test(a)) : undefined;
if (out && file) {
  process.once('exit', () => {
    const own = process.cpuUsage();
    appendFileSync(out, `${file}\t${Math.round((own.user + own.system) / 1000 + waitedChildrenMs())}\n`);
  });
}

/** CPU of the children this process waited for (Linux: cutime and cstime of /proc/self/stat, in ticks of 10 ms). */
function waitedChildrenMs(): number {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
    // After the command name: state is field 3 of stat(5); cutime and cstime are 16 and 17.
    return (Number(fields[13]) + Number(fields[14])) * 10;
  } catch {
    return 0;
  }
}
