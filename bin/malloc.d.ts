// Types of bin/malloc.js (plain JavaScript: bin/ runs before any TypeScript loader).
export const MMAP_THRESHOLD_VAR: 'MALLOC_MMAP_THRESHOLD_';
export const MMAP_THRESHOLD: string;
export function tunedProcess(env?: NodeJS.ProcessEnv): { env: NodeJS.ProcessEnv; execArgv: string[] };
export function wantsMallocTuning(env?: NodeJS.ProcessEnv): boolean;
export function rerunWithMallocTuning(args?: string[], options?: { replace?: boolean }): Promise<never>;
