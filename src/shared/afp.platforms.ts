/**
 * The platforms the daemon is built for, and what its build script (daemon/build.ts) prints for
 * one build. The server offers these downloads and runs the script by path in a child process;
 * this file is the whole of what the two sides agree on, so it imports nothing.
 */
export const DOWNLOAD_PLATFORMS = ['linux', 'mac', 'mac-arm', 'win'] as const;
export type DownloadPlatform = (typeof DOWNLOAD_PLATFORMS)[number];

/** One built executable: the last line the build script prints with `--json`. */
export interface Artifact {
  platform: DownloadPlatform;
  file: string;
  filename: string;
  size: number;
  /** The node version inside the executable. */
  nodeVersion: string;
}
