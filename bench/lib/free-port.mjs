// A free TCP port on 127.0.0.1, for a child that must be told its port up front (the
// bench's servers, the soak's gateway, the tests' Postgres and Redis). Free when asked,
// so a race with another process is possible but, on loopback in a test run, rare.
import { createServer } from 'node:net';

export function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}
