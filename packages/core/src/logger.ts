/** Where the core says what it decided (a backend taking over, ...). Silent unless given one. */
export interface Logger {
  info(message: string): void;
  warn(message: string): void;
}

export const silentLogger: Logger = { info() {}, warn() {} };

/** Writes warnings to stderr; for command-line tools. */
export const stderrLogger: Logger = {
  info() {},
  warn(message) {
    process.stderr.write(`${message}\n`);
  },
};
