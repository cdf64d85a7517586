import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type TLSSocket } from 'node:tls';

/**
 * A throwaway certificate authority with a server certificate for `serverName` and a client
 * certificate (mutual TLS), made with openssl; PEM texts.
 */
export function throwawayCertificates(serverName: string) {
  const dir = mkdtempSync(join(tmpdir(), 'temporal-tls-'));
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  try {
    openssl(
      'req',
      '-x509',
      ...ec,
      '-keyout',
      'ca.key',
      '-out',
      'ca.pem',
      '-days',
      '1',
      '-subj',
      '/CN=Test CA',
    );
    const issue = (name: string, subject: string, extensions: string) => {
      writeFileSync(join(dir, `${name}.ext`), extensions);
      openssl('req', ...ec, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${subject}`);
      openssl(
        'x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial',
        '-out', `${name}.pem`, '-days', '1', '-extfile', `${name}.ext`,
      ); // prettier-ignore
    };
    issue('server', serverName, `subjectAltName=DNS:${serverName}\nextendedKeyUsage=serverAuth\n`);
    issue('client', 'bus-booking-worker', 'extendedKeyUsage=clientAuth\n');
    const read = (file: string) => readFileSync(join(dir, file), 'utf8');
    return {
      ca: read('ca.pem'),
      serverCert: read('server.pem'),
      serverKey: read('server.key'),
      clientCert: read('client.pem'),
      clientKey: read('client.key'),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A TLS endpoint in front of a plaintext Temporal frontend, as a load balancer or Temporal Cloud
 * would present it: it asks for a client certificate signed by the CA (mutual TLS), speaks HTTP/2
 * (ALPN h2) and passes the decrypted gRPC stream on. `clients` counts the verified connections.
 */
export async function tlsFrontDoor(options: {
  targetPort: number;
  certificates: ReturnType<typeof throwawayCertificates>;
}) {
  const { certificates } = options;
  const state = { clients: 0, refused: 0 };
  const open = new Set<Socket>();
  const server = createServer(
    {
      key: certificates.serverKey,
      cert: certificates.serverCert,
      ca: certificates.ca,
      requestCert: true,
      rejectUnauthorized: true,
      ALPNProtocols: ['h2'],
    },
    (socket: TLSSocket) => {
      state.clients += 1;
      const upstream = connect(options.targetPort, '127.0.0.1');
      open.add(socket).add(upstream);
      socket.pipe(upstream).pipe(socket);
      const close = () => {
        socket.destroy();
        upstream.destroy();
        open.delete(socket);
        open.delete(upstream);
      };
      socket.on('error', close);
      upstream.on('error', close);
      socket.on('close', close);
      upstream.on('close', close);
    },
  );
  server.on('tlsClientError', () => {
    state.refused += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    state,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of open) socket.destroy();
      }),
  };
}
