/** A minimal HTTP CONNECT proxy on 127.0.0.1 that counts the tunnels it opens. */
import { createServer } from "node:http";
import { connect, type AddressInfo, type Socket } from "node:net";

export interface ConnectProxy {
  url: string;
  tunnels: string[];
  close(): Promise<void>;
}

export async function startConnectProxy(): Promise<ConnectProxy> {
  const tunnels: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((_request, response) => response.writeHead(405).end());
  server.on("connect", (request, client, head) => {
    const target = request.url ?? "";
    tunnels.push(target);
    const separator = target.lastIndexOf(":");
    sockets.add(client as Socket);
    const upstream = connect(Number(target.slice(separator + 1)), target.slice(0, separator), () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on("error", () => client.destroy());
    client.on("error", () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    tunnels,
    close: () =>
      new Promise((resolve) => {
        // Tunnels are not HTTP connections any more, so closeAllConnections does not reach them.
        for (const socket of sockets) socket.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
