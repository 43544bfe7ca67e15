/**
 * The stdio-socket bridge: the stdio command of a scripted MCP server. The worker spawns it as it spawns any
 * stdio server, and it pipes its stdin and stdout to the kit's socket (`node stdio-socket-bridge.js <port>`),
 * where the scripted tools run. It exits when either side closes, so no process outlives the worker's session
 * or the kit.
 */
import { connect } from 'node:net';

const port = Number(process.argv[2]);
if (!Number.isInteger(port) || port <= 0) {
  process.stderr.write(`durable-mcp stdio-socket bridge: expected a port, got ${JSON.stringify(process.argv[2])}\n`);
  process.exit(2);
}
const socket = connect(port, '127.0.0.1');
socket.on('error', (err) => {
  process.stderr.write(`durable-mcp stdio-socket bridge: ${err.message}\n`);
  process.exit(1);
});
socket.on('close', () => process.exit(0));
process.stdin.on('end', () => socket.end());
process.stdin.pipe(socket);
socket.pipe(process.stdout);
