import { execFile } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export type TestPki = {
  /** The CA certificate's file, for NODE_EXTRA_CA_CERTS. */
  readonly caFile: string;
  readonly ca: string;
  /** Issues a server certificate for these subject alternative names (`DNS:x`, `IP:y`). */
  issue(names: string[]): Promise<{ key: string; cert: string }>;
};

/**
 * A throwaway certificate authority made with openssl (P-256 keys: fast), so tests can run
 * real https servers the service trusts only through NODE_EXTRA_CA_CERTS.
 */
export async function createTestPki(): Promise<TestPki> {
  const dir = await mkdtemp(join(tmpdir(), 'sites-pki-'));
  const caKey = join(dir, 'ca.key');
  const caFile = join(dir, 'ca.pem');
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  await run('openssl', ['req', '-x509', ...ec, '-keyout', caKey, '-out', caFile, '-days', '2', '-subj', '/CN=Sites test CA',
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign']);
  let serial = 0;
  return {
    caFile,
    ca: await readFile(caFile, 'utf8'),
    async issue(names) {
      serial += 1;
      const base = join(dir, `leaf-${serial}`);
      await run('openssl', ['req', ...ec, '-keyout', `${base}.key`, '-out', `${base}.csr`, '-subj', `/CN=${names[0]!.replace(/^\w+:/, '')}`]);
      await writeFile(`${base}.ext`, `subjectAltName=${names.join(',')}\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n`);
      await run('openssl', ['x509', '-req', '-in', `${base}.csr`, '-CA', caFile, '-CAkey', caKey, '-set_serial', String(1000 + serial),
        '-out', `${base}.pem`, '-days', '2', '-extfile', `${base}.ext`]);
      return { key: await readFile(`${base}.key`, 'utf8'), cert: await readFile(`${base}.pem`, 'utf8') };
    },
  };
}
