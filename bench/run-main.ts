/** Runs a benchmark's main: a bad file or argument is one line on stderr and exit code 1, not a stack trace. */
export async function runMain(main: () => Promise<void>) {
  try {
    await main();
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    process.exit(1);
  }
}
