/**
 * A TCP proxy on 127.0.0.1 in front of another address, which a test can cut (every connection
 * through it ends and new ones are refused, as when a database goes down) and restore on the same
 * port (the database is back).
 */
import { type AddressInfo, type Server, type Socket, createServer, connect } from 'node:net';

export interface TcpProxy {
  port: number;
  /** End every connection through the proxy and refuse new ones. */
  cut(): Promise<void>;
  /** Accept connections again, on the same port. */
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function tcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  const listen = (server: Server, port = 0) =>
    new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
    });
  const open = () =>
    createServer((client) => {
      const upstream = connect(targetPort, targetHost);
      track(client);
      track(upstream);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
      client.pipe(upstream).pipe(client);
    });
  let server: Server | null = open();
  const port = await listen(server);
  const stop = async () => {
    const closing = server;
    server = null;
    for (const socket of sockets) socket.destroy();
    if (closing) await new Promise<void>((resolve) => closing.close(() => resolve()));
  };
  return {
    port,
    cut: stop,
    async restore() {
      if (server) return;
      server = open();
      await listen(server, port);
    },
    close: stop,
  };
}
