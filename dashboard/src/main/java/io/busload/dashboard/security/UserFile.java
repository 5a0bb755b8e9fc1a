package io.busload.dashboard.security;

import java.io.IOException;
import java.io.PrintStream;
import java.io.Reader;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Properties;
import java.util.TreeMap;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetails;
import org.springframework.security.crypto.password.PasswordEncoder;

/**
 * The dashboard's users, one per line of a properties file: {@code name = {bcrypt}hash,ROLE,ROLE}. Roles are
 * {@link #OPERATOR} (start sweeps, change schedules) and {@link #ADMIN} (the same; kept apart so a deployment can
 * tell people from the first account). Edit the file to add users; hashes come from any BCrypt tool, for example
 * {@code htpasswd -bnBC 10 "" secret | tr -d ':'} prefixed with {@code {bcrypt}}.
 *
 * <p>When the file does not exist, {@link #loadOrCreate} writes one with user {@code admin} and a random password,
 * and prints that password once on the console (not through the logger, so it never lands in a log file that
 * keeps it). Only the hash is stored.
 */
public final class UserFile {
  public static final String ADMIN = "ADMIN";
  public static final String OPERATOR = "OPERATOR";
  static final String FIRST_ADMIN = "admin";

  private UserFile() {}

  public static List<UserDetails> loadOrCreate(Path file, PasswordEncoder encoder, PrintStream console)
      throws IOException {
    if (!Files.exists(file)) {
      createFirstAdmin(file, encoder, console);
    }
    Properties properties = new Properties();
    try (Reader reader = Files.newBufferedReader(file)) {
      properties.load(reader);
    }
    List<UserDetails> users = new ArrayList<>();
    new TreeMap<>(properties).forEach((name, value) -> users.add(parse((String) name, (String) value, file)));
    return users;
  }

  static UserDetails parse(String name, String value, Path file) {
    String[] parts = value.split(",");
    if (parts.length < 2 || parts[0].isBlank()) {
      throw new IllegalArgumentException(file + ": user '" + name
          + "' needs '{bcrypt}hash,ROLE[,ROLE...]' (the password hash is not shown here)");
    }
    String[] roles = Arrays.stream(parts, 1, parts.length).map(String::trim).filter(r -> !r.isEmpty())
        .toArray(String[]::new);
    return User.withUsername(name).password(parts[0].trim()).roles(roles).build();
  }

  private static void createFirstAdmin(Path file, PasswordEncoder encoder, PrintStream console) throws IOException {
    byte[] random = new byte[18];
    new SecureRandom().nextBytes(random);
    String password = Base64.getUrlEncoder().withoutPadding().encodeToString(random);
    Files.createDirectories(file.toAbsolutePath().getParent());
    Properties properties = new Properties();
    properties.setProperty(FIRST_ADMIN, encoder.encode(password) + "," + ADMIN + "," + OPERATOR);
    try (Writer writer = Files.newBufferedWriter(file)) {
      properties.store(writer, "Busload dashboard users: name = {bcrypt}hash,ROLE[,ROLE] (ADMIN, OPERATOR)");
    }
    try {
      Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    } catch (UnsupportedOperationException notPosix) {
      // Windows: the directory's ACL applies.
    }
    console.println("""
        ==========================================================================
        Busload dashboard: first start, created user 'admin' in %s
        Its password, shown this once only (the file keeps a hash): %s
        ==========================================================================""".formatted(file, password));
    console.flush();
  }
}
