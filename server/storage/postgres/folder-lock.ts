// PGlite keeps its data in a folder and takes no lock on it: a second process opening the same
// folder would write the same files as the first and corrupt them. So a store on `pglite:<dir>`
// holds a lock file there (its pid) while open, and another process is refused with a clear
// message. A lock left by a process that died (kill -9) is taken over.
import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';

const LOCK_FILE = 'sm.lock';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, owned by someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** Takes the folder's lock for this process; returns its release. Throws when another live process holds it. */
export function lockFolder(dir: string): () => void {
  const path = join(dir, LOCK_FILE);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        rmSync(path, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number(readFileSync(path, 'utf8').trim());
      if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && alive(holder)) {
        throw new Error(
          `PGlite in ${dir} is open in another process (pid ${holder}): PGlite serves one process; stop it, or use a Postgres server for several`,
        );
      }
      rmSync(path, { force: true }); // its holder is gone (or is this process, which closed without releasing)
    }
  }
  throw new Error(`cannot take the lock ${path}`);
}
