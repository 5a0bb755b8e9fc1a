package io.busload.agent;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The REST API token a command sends, read from a file (its option, else {@code BUSLOAD_API_TOKEN_FILE}): the token is
 * never echoed, so it stays out of messages and the process list.
 */
public final class ApiTokenFile {
  private ApiTokenFile() {}

  /**
   * The one token on one line of {@code option}'s file, or of {@code BUSLOAD_API_TOKEN_FILE}'s.
   *
   * @throws IllegalArgumentException saying what is wrong ({@code whenMissing} when no file is named), for the
   *     command's usage error
   */
  public static String read(Path option, String whenMissing) {
    Path file = named(option);
    if (file == null) {
      throw new IllegalArgumentException(whenMissing);
    }
    try {
      String token = Files.readString(file, StandardCharsets.UTF_8).strip();
      if (token.isEmpty() || token.lines().count() > 1) {
        throw new IllegalArgumentException("the API token file " + file + " must hold one token on one line");
      }
      return token;
    } catch (IOException e) {
      throw new IllegalArgumentException("the API token file " + file + " cannot be read ("
          + e.getClass().getSimpleName() + ")");
    }
  }

  /** The token's file: {@code option}, else {@code BUSLOAD_API_TOKEN_FILE}'s; null where neither names one. */
  public static Path named(Path option) {
    String env = System.getenv("BUSLOAD_API_TOKEN_FILE");
    return option == null && env != null && !env.isBlank() ? Path.of(env.strip()) : option;
  }
}
