package io.busload.protocol.pki;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * Files of the PKI, created readable by their owner only: keys and passwords are never, even for a moment, readable
 * by another user on the host.
 */
final class OwnerOnly {
  private static final SecureRandom RANDOM = new SecureRandom();

  private OwnerOnly() {}

  /** {@code dir} and any missing parents, the new ones mode 0700. */
  static void directory(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    }
  }

  /** {@code file} holding {@code bytes}, mode 0600; an older file of that name is replaced. */
  static void write(Path file, byte[] bytes) throws IOException {
    Files.deleteIfExists(file);
    Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    Files.write(file, bytes);
  }

  static void store(KeyStore store, Path file, char[] password) throws IOException, GeneralSecurityException {
    write(file, new byte[0]);
    try (OutputStream out = Files.newOutputStream(file)) {
      store.store(out, password);
    }
  }

  static void replace(Path from, Path to) throws IOException {
    Files.move(from, to, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  /** 256 random bits as letters and digits (Base64 without its signs), so it fits any file or prompt. */
  static char[] newPassword() {
    byte[] secret = new byte[32];
    RANDOM.nextBytes(secret);
    return Base64.getEncoder().encodeToString(secret).replaceAll("[/+=]", "").toCharArray();
  }
}
