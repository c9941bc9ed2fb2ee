/**
 * Certificate reload for the Node server: when TLS_CERT_FILE, TLS_KEY_FILE or the mTLS client CA change (a
 * Kubernetes Secret volume swaps its `..data` symlink; cert-manager renews), the new pair is read, checked and
 * installed with `server.setSecureContext`, without a restart: connections already open keep their context and their
 * in-flight requests; new handshakes get the new certificate. A pair that does not load keeps the old one.
 */
import { watch, type FSWatcher } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname } from "node:path";
import { X509Certificate } from "node:crypto";
import { createSecureContext, type SecureContextOptions } from "node:tls";
import type { Logger } from "../../shared/log.ts";

/** The files a server's TLS context comes from. */
export interface TlsFiles {
  certFile: string;
  keyFile: string;
  /** CALLER_AUTH=mtls: the CA of accepted client certificates. */
  caFile?: string | undefined;
}

/** The contents of {@link TlsFiles}. */
export interface TlsMaterial {
  cert: Buffer;
  key: Buffer;
  ca?: Buffer;
}

/** A server whose context can be replaced (node:https). */
export interface ReloadableServer {
  setSecureContext(options: SecureContextOptions): void;
}

/** Options of {@link watchTlsFiles}. */
export interface TlsReloadOptions {
  logger: Logger;
  /** Wait this long after the last change before reading (a swap is several events). Default 250. */
  debounceMs?: number;
}

/** Reads the files of {@link TlsFiles}. @throws the read error (ENOENT mid-swap). */
export async function readTlsMaterial(files: TlsFiles): Promise<TlsMaterial> {
  const [cert, key, ca] = await Promise.all([
    readFile(files.certFile),
    readFile(files.keyFile),
    files.caFile === undefined ? undefined : readFile(files.caFile),
  ]);
  return ca === undefined ? { cert, key } : { cert, key, ca };
}

/** What the log may say about a certificate: never the key, never the PEM. */
function describeCertificate(cert: Buffer): { serial: string; notAfter: string; fingerprint256: string } {
  const x509 = new X509Certificate(cert);
  return { serial: x509.serialNumber, notAfter: x509.validTo, fingerprint256: x509.fingerprint256 };
}

function sameMaterial(a: TlsMaterial, b: TlsMaterial): boolean {
  return a.cert.equals(b.cert) && a.key.equals(b.key) && (a.ca === undefined ? b.ca === undefined : b.ca !== undefined && a.ca.equals(b.ca));
}

/** The short code of an error (OpenSSL's `ERR_OSSL_...`, `ENOENT`): its message may quote file contents. */
function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | undefined)?.code;
  if (typeof code === "string") return code;
  return error instanceof Error ? error.name : "unknown error";
}

/**
 * Watches the folders of `files` and installs a changed, valid pair on `server`. `initial` is what the server
 * was started with.
 * @returns `close`, which stops watching.
 */
export function watchTlsFiles(server: ReloadableServer, files: TlsFiles, initial: TlsMaterial, options: TlsReloadOptions): { close(): void } {
  const { logger } = options;
  const debounceMs = options.debounceMs ?? 250;
  let current = initial;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let reloading = Promise.resolve();

  async function reload(): Promise<void> {
    let next: TlsMaterial;
    try {
      next = await readTlsMaterial(files);
    } catch (error) {
      logger.log("error", "TLS files unreadable; keeping the current certificate", { error: errorCode(error) });
      return;
    }
    if (sameMaterial(current, next)) return;
    try {
      // Throws for a key that does not match the certificate, or PEM that does not parse.
      createSecureContext(next);
      const described = describeCertificate(next.cert);
      server.setSecureContext(next);
      current = next;
      logger.log("info", "TLS certificate reloaded", described);
    } catch (error) {
      logger.log("error", "TLS certificate and key refused; keeping the current certificate", { error: errorCode(error) });
    }
  }

  const schedule = (): void => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      // One reload at a time, in order: a later swap must win over an earlier one.
      reloading = reloading.then(reload);
    }, debounceMs);
    timer.unref();
  };
  const folders = new Set([files.certFile, files.keyFile, ...(files.caFile === undefined ? [] : [files.caFile])].map((file) => dirname(file)));
  const watchers: FSWatcher[] = [...folders].map((folder) => {
    const watcher = watch(folder, { persistent: false }, schedule);
    watcher.on("error", (error) => logger.log("error", "watching the TLS folder failed", { error: errorCode(error) }));
    return watcher;
  });
  return {
    close() {
      clearTimeout(timer);
      for (const watcher of watchers) watcher.close();
    },
  };
}
