/**
 * Writes a file of lines to an HTTP response itself (not through Koa's body pipe) and counts the
 * rows the connection took, which is what a CSV export is paid for.
 *
 * A row counts once the write that holds it has been handed to the operating system: Node calls
 * a write's callback then, and calls the callbacks of one socket in order, so the count is the
 * last row whose callback came without an error. Each row is its own write, so a row is either
 * counted or not: a client that received a whole row received it from a write that was taken
 * whole (rows are never counted before the socket took them, so a client is never charged for
 * rows that only sat in this process's buffers). When Node merges writes waiting behind a full
 * socket into one, a row the socket took only in part leaves the rows merged with it uncounted,
 * in the client's favour. Writes wait for `drain` when the socket is full: memory stays flat.
 */
import { once } from 'node:events';
import type { ServerResponse } from 'node:http';

/** How a file went out: the rows the connection took, whether it was sent to the end, and the walk's error if it failed. */
export interface RowsWritten {
  rows: number;
  complete: boolean;
  error?: unknown;
}

/**
 * Sends `head` (a line that is not a row), then every line of `batches` as a row, then ends the
 * response; stops when the client goes (the batches are then abandoned, so their walk closes).
 * A walk that throws destroys the response, so the client sees a cut transfer, never a file
 * that looks complete. Resolves once the connection has settled every write (closed or
 * finished): never rejects.
 */
export async function writeRows(res: ServerResponse, head: string, batches: AsyncIterable<readonly string[]>): Promise<RowsWritten> {
  // Destroyed already (the client went during the count): nothing written, no write to wait for.
  if (gone(res)) return { rows: 0, complete: false };
  // The connection's close as well as the response's: a response still queued behind another on
  // the same connection (pipelining) is never closed itself when the connection goes.
  const socket = res.req.socket;
  let onClose = (): void => {};
  const closed = new Promise<void>((resolve) => {
    onClose = resolve;
    res.once('close', onClose);
    socket.once('close', onClose);
  });
  let rows = 0;
  let queued = 0;
  let error: unknown;
  const write = async (line: string, row: boolean): Promise<void> => {
    const n = row ? ++queued : queued;
    const ok = res.write(line, (err) => {
      if (!err && row) rows = n;
    });
    if (!ok) await Promise.race([new Promise((resolve) => res.once('drain', resolve)), closed]);
  };
  try {
    await write(head, false);
    outer: for await (const lines of batches) {
      for (const line of lines) {
        if (gone(res)) break outer;
        await write(line, true);
      }
    }
  } catch (err) {
    error = err;
  }
  if (error || gone(res)) res.destroy();
  else res.end();
  // Every write's callback has come by the time the response closes (after its end, or when the connection is gone).
  await closed;
  res.off('close', onClose);
  socket.off('close', onClose);
  return { rows, complete: !error && res.writableFinished, ...(error ? { error } : {}) };
}

/** The connection cannot take more: destroyed, or its socket ended (the client closed its side). */
const gone = (res: ServerResponse): boolean => res.destroyed || res.req.socket.destroyed || res.socket?.writable === false;
