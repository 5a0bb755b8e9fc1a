package io.busload.simulator.fleet;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What a stranger on the lab network can send the coordinator without a token: anonymous reads of the most expensive
 * resource (the History annotations of every device), connections that send their request headers a byte at a time
 * (slowloris), and connections that send nothing. From a loopback address of its own ({@code 127.0.0.2}), as another
 * host would come, so that the coordinator can tell it from the fleet. Virtual threads, one per client.
 */
final class Flood implements AutoCloseable {
  /** The flood's own address: Linux routes all of 127/8 to the loopback interface. */
  static final String SOURCE = "127.0.0.2";
  private static final byte[] SLOW_REQUEST = ("GET /api/agents HTTP/1.1\r\nHost: coordinator\r\nUser-Agent: slow"
      + "\r\nAccept: */*\r\nX-Padding: " + "a".repeat(64) + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII);

  /**
   * How much of each.
   *
   * @param readers clients asking for annotations in a loop, each waiting for its answer
   * @param slow slowloris connections on each of the REST and bridge ports
   * @param idle connections that send nothing, on each port
   * @param byteEvery the slowloris' pace
   */
  record Plan(int readers, int slow, int idle, Duration byteEvery) {}

  /** What the flood saw. */
  record Seen(Map<String, Long> readAnswers, long readsAnswered, long slowClosedByServer, long idleClosedByServer,
      long connectFailures) {}

  private final Plan plan;
  private final int restPort;
  private final int bridgePort;
  private final List<String> questions;
  private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
  private final Map<String, AtomicLong> answers = new ConcurrentHashMap<>();
  private final AtomicLong slowClosed = new AtomicLong();
  private final AtomicLong idleClosed = new AtomicLong();
  private final AtomicLong connectFailures = new AtomicLong();
  private final List<Socket> sockets = java.util.Collections.synchronizedList(new ArrayList<>());
  private volatile boolean running = true;
  private HttpClient http;

  /** @param questions {@code kernel=...&params=...} query strings of kernel cases the fleet has measured */
  Flood(Plan plan, int restPort, int bridgePort, List<Map.Entry<String, String>> questions) {
    this.plan = plan;
    this.restPort = restPort;
    this.bridgePort = bridgePort;
    this.questions = questions.stream().map(q -> "kernel=" + URLEncoder.encode(q.getKey(), StandardCharsets.UTF_8)
        + "&params=" + URLEncoder.encode(q.getValue(), StandardCharsets.UTF_8)).toList();
  }

  void start() throws IOException {
    http = HttpClient.newBuilder().localAddress(InetAddress.getByName(SOURCE)).connectTimeout(Duration.ofSeconds(5))
        .executor(threads).build();
    for (int i = 0; i < plan.readers(); i++) {
      int reader = i;
      threads.submit(() -> read(reader));
    }
    for (int port : bridgePort < 0 ? new int[] {restPort} : new int[] {restPort, bridgePort}) {
      for (int i = 0; i < plan.slow(); i++) {
        threads.submit(() -> hold(port, true));
      }
      for (int i = 0; i < plan.idle(); i++) {
        threads.submit(() -> hold(port, false));
      }
    }
  }

  private void read(int reader) {
    int n = reader;
    while (running) {
      String query = questions.get(n++ % questions.size());
      String outcome;
      try {
        HttpResponse<Void> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + restPort
            + "/api/history/annotations?" + query)).timeout(Duration.ofSeconds(60)).build(),
            HttpResponse.BodyHandlers.discarding());
        outcome = Integer.toString(r.statusCode());
        if (r.statusCode() == 429 || r.statusCode() == 503) {
          // A polite client would wait Retry-After; a flood does not, beyond a breath.
          Thread.sleep(50);
        }
      } catch (IOException e) {
        outcome = "error: " + e.getClass().getSimpleName();
        sleep(100);
      } catch (InterruptedException e) {
        return;
      }
      answers.computeIfAbsent(outcome, k -> new AtomicLong()).incrementAndGet();
    }
  }

  /** One connection at a time on {@code port}, held as long as the server lets it; again when it is closed. */
  private void hold(int port, boolean slow) {
    while (running) {
      try (Socket socket = new Socket()) {
        socket.bind(new InetSocketAddress(SOURCE, 0));
        socket.connect(new InetSocketAddress("127.0.0.1", port), 5000);
        sockets.add(socket);
        OutputStream out = socket.getOutputStream();
        socket.setSoTimeout((int) plan.byteEvery().toMillis());
        int i = 0;
        while (running) {
          if (slow) {
            out.write(SLOW_REQUEST[i++ % (SLOW_REQUEST.length - 2)]);
            out.flush();
          }
          try {
            if (socket.getInputStream().read() < 0) {
              break;
            }
          } catch (java.net.SocketTimeoutException quiet) {
            // Nothing from the server: still held.
          }
        }
        if (running) {
          (slow ? slowClosed : idleClosed).incrementAndGet();
        }
        sockets.remove(socket);
      } catch (IOException e) {
        if (running) {
          (slow ? slowClosed : idleClosed).incrementAndGet();
          connectFailures.incrementAndGet();
          sleep(100);
        }
      }
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  Seen seen() {
    Map<String, Long> read = new java.util.TreeMap<>();
    answers.forEach((k, v) -> read.put(k, v.get()));
    return new Seen(read, read.values().stream().mapToLong(Long::longValue).sum(), slowClosed.get(), idleClosed.get(),
        connectFailures.get());
  }

  @Override
  public void close() {
    running = false;
    synchronized (sockets) {
      for (Socket s : sockets) {
        try {
          s.close();
        } catch (IOException ignored) {
          // Closing anyway.
        }
      }
    }
    threads.shutdownNow();
    if (http != null) {
      http.shutdownNow();
    }
  }
}
