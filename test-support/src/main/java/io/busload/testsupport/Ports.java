package io.busload.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;

/** Ports for servers a test starts on loopback. */
public final class Ports {
  private Ports() {}

  /**
   * A port nothing listened on a moment ago: for a server the test starts next, or for a client that must find
   * nobody there.
   */
  public static int free() {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
