import dgram from 'node:dgram';
import type { AddressInfo } from 'node:net';

/**
 * A DNS server on a local UDP port for the outbound client's tests. `answer` decides per
 * question: `'silent'` never answers (a name server that hangs), `'nxdomain'` says the name
 * does not exist, a list of IPv4 addresses answers an A question with them (and any other
 * question with no records). Every question's name is logged in `names`.
 */
export async function startNameServer(answer: (name: string) => 'silent' | 'nxdomain' | readonly string[], port = 0, host = '127.0.0.1') {
  const socket = dgram.createSocket('udp4');
  const names: string[] = [];
  socket.on('message', (msg: Buffer, peer) => {
    // The question: length-prefixed labels after the 12-byte header, then type and class.
    const labels: string[] = [];
    let end = 12;
    for (; end < msg.length && msg[end]! > 0; end += msg[end]! + 1) labels.push(msg.subarray(end + 1, end + 1 + msg[end]!).toString());
    const name = labels.join('.');
    names.push(name);
    const what = answer(name);
    if (what === 'silent') return;
    const question = msg.subarray(12, end + 5);
    const isA = question.readUInt16BE(question.length - 4) === 1;
    const records = what === 'nxdomain' || !isA ? [] : what;
    // Flags: a response to a recursive query, recursion available, rcode 0 or 3 (NXDOMAIN).
    const header = Buffer.from([msg[0]!, msg[1]!, 0x81, what === 'nxdomain' ? 0x83 : 0x80, 0, 1, 0, records.length, 0, 0, 0, 0]);
    // Each answer points back at the question's name (offset 12), type A, class IN, TTL 60.
    const answers = records.map((a) => Buffer.from([0xc0, 12, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, ...a.split('.').map(Number)]));
    socket.send(Buffer.concat([header, question, ...answers]), peer.port, peer.address);
  });
  await new Promise<void>((r) => socket.bind(port, host, r));
  return {
    server: `${host}:${(socket.address() as AddressInfo).port}`,
    names,
    close: () => new Promise<void>((r) => socket.close(() => r())),
  };
}
