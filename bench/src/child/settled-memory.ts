/** Memory in use once the last queries' sockets have closed, after two full collections. */
const gc = (globalThis as { gc?: () => void }).gc;

export async function settledMemory(): Promise<NodeJS.MemoryUsage> {
  if (!gc) throw new Error('run with --expose-gc');
  await new Promise((resolve) => setTimeout(resolve, 300));
  gc();
  gc();
  return process.memoryUsage();
}
