package io.busload.coordinator.notify;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/** A real HTTP receiver on loopback: keeps every POST (path, headers, raw body) and answers with {@code status}. */
final class Receiver implements AutoCloseable {
  /** One request as it arrived. */
  record Request(String path, Map<String, List<String>> headers, byte[] body) {
    String header(String name) {
      return headers.entrySet().stream().filter(e -> e.getKey().equalsIgnoreCase(name)).findFirst()
          .map(e -> e.getValue().getFirst()).orElse(null);
    }

    String text() {
      return new String(body, java.nio.charset.StandardCharsets.UTF_8);
    }
  }

  private final HttpServer server;
  final List<Request> requests = new CopyOnWriteArrayList<>();

  Receiver(int status) throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/", exchange -> {
      try (InputStream in = exchange.getRequestBody()) {
        requests.add(new Request(exchange.getRequestURI().toString(), Map.copyOf(exchange.getRequestHeaders()),
            in.readAllBytes()));
      }
      byte[] reply = (status / 100 == 2 ? "ok" : "receiver down").getBytes();
      exchange.sendResponseHeaders(status, reply.length);
      exchange.getResponseBody().write(reply);
      exchange.close();
    });
    server.start();
  }

  String url(String path) {
    return "http://127.0.0.1:" + server.getAddress().getPort() + path;
  }

  List<Request> to(String path) {
    return requests.stream().filter(r -> r.path().equals(path)).toList();
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
