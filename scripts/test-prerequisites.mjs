// What the test suite needs from the system, checked before `npm test` runs anything: Debian's
// Chromium (the inspector's browser tests), PostgreSQL's server binaries (the Postgres port tests)
// and Python 3 with httpx and pytest (the Python client's tests). As root the missing packages
// are installed with apt-get, saying which; as anyone else the exact command is printed and the
// run stops, before a test fails for a reason that has nothing to do with the code.
import { spawnSync } from 'node:child_process';
import { accessSync, constants, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const executable = (path) => {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

const imports = (root, module) => {
  const python = join(root, 'usr/bin/python3');
  return executable(python) && spawnSync(python, ['-c', `import ${module}`], { stdio: 'ignore' }).status === 0;
};

/** Each Debian package, what needs it, and how to tell it is there (under `root`, / but in tests). */
export const PREREQUISITES = [
  {
    pkg: 'chromium',
    why: 'the inspector browser tests',
    present: (root) => executable(join(root, 'usr/bin/chromium')),
  },
  {
    pkg: 'postgresql',
    why: 'the Postgres tests',
    present: (root) => {
      try {
        return readdirSync(join(root, 'usr/lib/postgresql')).some((version) =>
          executable(join(root, 'usr/lib/postgresql', version, 'bin/initdb')),
        );
      } catch {
        return false;
      }
    },
  },
  { pkg: 'python3-httpx', why: 'the Python client tests', present: (root) => imports(root, 'httpx') },
  { pkg: 'python3-pytest', why: 'the Python client tests', present: (root) => imports(root, 'pytest') },
];

/** The prerequisites missing under `root`. */
export const missingPrerequisites = (root = '/') => PREREQUISITES.filter((p) => !p.present(root));

/**
 * What to do about `missing`: nothing; install them (root, with apt-get); or stop with the command
 * to run (exit code 1).
 */
export function plan(missing, { isRoot, hasApt }) {
  if (missing.length === 0) return { action: 'none', lines: [] };
  const names = missing.map((p) => p.pkg);
  const lines = missing.map((p) => `  ${p.pkg} (for ${p.why})`);
  if (!hasApt)
    return {
      action: 'stop',
      lines: [
        'The tests need these Debian packages, and this system has no apt-get:',
        ...lines,
        'Install their equivalents, then run the tests again.',
      ],
    };
  if (isRoot)
    return {
      action: 'install',
      packages: names,
      lines: [`Installing what the tests need: ${names.join(', ')}`, ...lines],
    };
  return {
    action: 'stop',
    lines: [
      'The tests need these Debian packages, which are not installed:',
      ...lines,
      'Install them as root, then run the tests again:',
      `  sudo apt-get install -y ${names.join(' ')}`,
    ],
  };
}

function main() {
  const decided = plan(missingPrerequisites(), {
    isRoot: process.getuid?.() === 0,
    hasApt: executable('/usr/bin/apt-get'),
  });
  for (const line of decided.lines) console.error(line);
  if (decided.action === 'stop') process.exit(1);
  if (decided.action !== 'install') return;
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  for (const args of [
    ['update', '-qq'],
    ['install', '-y', '-qq', ...decided.packages],
  ]) {
    const result = spawnSync('apt-get', args, { stdio: ['ignore', 'ignore', 'inherit'], env });
    if (result.status !== 0) {
      console.error(`apt-get ${args.join(' ')} failed (exit ${result.status ?? result.signal})`);
      process.exit(1);
    }
  }
  const still = missingPrerequisites();
  if (still.length) {
    console.error(`Still missing after apt-get: ${still.map((p) => p.pkg).join(', ')}`);
    process.exit(1);
  }
  console.error('Installed.');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) main();
