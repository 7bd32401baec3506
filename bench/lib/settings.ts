/** The benches' settings from the environment. */

/** A positive number from the environment variable `name`, or `fallback` when it is unset. */
export function positive(name: string, fallback: number): number {
  const value = Number(process.env[name] ?? fallback);
  if (!(value > 0)) throw new Error(`${name} must be a positive number, got "${process.env[name]}"`);
  return value;
}
