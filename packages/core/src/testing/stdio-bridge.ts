// The process a mock server's stdio spec starts: it joins its stdin and stdout to a local
// socket on which the mock server (in the test's process) serves one MCP session.
//   node stdio-bridge.js <socket path>
import { connect } from "node:net";

const path = process.argv[2];
if (!path) {
  process.stderr.write("stdio-bridge: usage: stdio-bridge.js <socket path>\n");
  process.exit(2);
}
const socket = connect(path);
socket.on("error", (error) => {
  process.stderr.write(`stdio-bridge: cannot reach the mock server at ${path}: ${error.message}\n`);
  process.exit(1);
});
process.stdin.pipe(socket);
socket.pipe(process.stdout);
process.stdin.on("end", () => socket.end());
socket.on("close", () => process.exit(0));
