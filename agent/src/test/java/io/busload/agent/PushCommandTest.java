package io.busload.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code push}'s exit codes and messages, in-process. The coordinator here is an HTTP server on loopback
 * giving the answers docs/contract.md documents for {@code POST /api/pushes} (per file name), so every answer can be
 * had on demand; deploy's PushIT pushes to a real coordinator through {@code ./busload push}.
 */
class PushCommandTest {
  @TempDir Path dir;
  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();
  private Vertx vertx;
  private HttpServer server;
  private Path token;
  /** By file name: the status and body the stand-in answers. */
  private final Map<String, String[]> answers = new ConcurrentHashMap<>();
  private final List<String> requests = new CopyOnWriteArrayList<>();

  @BeforeEach
  void start() throws Exception {
    token = Files.writeString(dir.resolve("token"), "secret-token\n");
    vertx = Vertx.vertx();
    server = vertx.createHttpServer().requestHandler(request -> request.body().onSuccess(body -> {
      String file = request.getParam("file");
      requests.add(request.method() + " " + request.path() + " file=" + file + " host=" + request.getParam("host")
          + " auth=" + request.getHeader("Authorization") + " type=" + request.getHeader("Content-Type")
          + " bytes=" + body.length());
      String name = file == null ? "" : Path.of(file).getFileName().toString();
      String[] answer = answers.getOrDefault(name, new String[] {"201", "{\"pushId\":\"p1\",\"results\":3,"
          + "\"stored\":3,\"alreadyPresent\":0,\"runIds\":[\"r1\"]}"});
      request.response().setStatusCode(Integer.parseInt(answer[0])).end(answer[1]);
    })).listen(0, "127.0.0.1").await(10, TimeUnit.SECONDS);
  }

  @AfterEach
  void stop() throws Exception {
    vertx.close().await(10, TimeUnit.SECONDS);
  }

  private int push(String... args) {
    CommandLine cli = Main.commandLine();
    cli.setOut(new PrintWriter(out));
    cli.setErr(new PrintWriter(err));
    return cli.execute(args);
  }

  private String url() {
    return "http://127.0.0.1:" + server.actualPort();
  }

  private Path file(String name) throws Exception {
    return Files.writeString(dir.resolve(name), "[]\n");
  }

  @Test
  void push_storedThenAlreadyPresent_exit0SayingSo() throws Exception {
    Path results = file("stride.json");
    answers.put("again.json", new String[] {"200", "{\"pushId\":\"p2\",\"results\":3,\"stored\":0,"
        + "\"alreadyPresent\":3,\"runIds\":[\"r1\"]}"});
    Path again = file("again.json");

    int exit = push("push", "--coordinator", url(), "--token-file", token.toString(), "--host", "lab-1",
        results.toString(), again.toString());

    assertThat(exit).as(err.toString()).isZero();
    assertThat(out.toString()).contains(results + ": 3 stored, 0 already present (3 results; push p1, run r1)")
        .contains(again + ": 0 stored, 3 already present");
    assertThat(requests.getFirst()).isEqualTo("POST /api/pushes file=" + results + " host=lab-1"
        + " auth=Bearer secret-token type=application/json bytes=3");
    assertThat(err.toString()).doesNotContain("secret-token");
  }

  @Test
  void push_refusedFile_exit1NamingTheFileAndDetailOthersStillPushed() throws Exception {
    answers.put("bad.csv", new String[] {"400", "{\"status\":400,\"detail\":\"line 4, field medianSeconds: not a"
        + " number: 'x'\",\"line\":4}"});
    answers.put("clash.json", new String[] {"409", "{\"status\":409,\"detail\":\"line 2: result 1 is stored"
        + " already with other contents (medianSeconds differs)\"}"});
    Path bad = file("bad.csv");
    Path clash = file("clash.json");
    Path good = file("good.json");

    int exit = push("push", "--coordinator", url(), "--token-file", token.toString(), bad.toString(),
        clash.toString(), good.toString());

    assertThat(exit).isEqualTo(PushCommand.REFUSED);
    assertThat(err.toString())
        .contains(bad + ": refused (400), nothing of it stored: line 4, field medianSeconds: not a number: 'x'")
        .contains(clash + ": refused (409), nothing of it stored: line 2: result 1 is stored already");
    assertThat(out.toString()).contains(good + ": 3 stored");
    assertThat(requests).hasSize(3);
    assertThat(requests.getFirst()).contains("type=text/csv");
  }

  @Test
  void push_wrongToken_exit4AndStops() throws Exception {
    answers.put("a.json", new String[] {"401", "{\"status\":401,\"detail\":\"writes need an API token\"}"});

    int exit = push("push", "--coordinator", url(), "--token-file", token.toString(), file("a.json").toString(),
        file("b.json").toString());

    assertThat(exit).isEqualTo(PushCommand.UNAUTHORIZED);
    assertThat(err.toString()).contains("the coordinator at " + url() + "/ refused the API token (401)");
    assertThat(requests).hasSize(1);
  }

  @Test
  void push_coordinatorFails_exit3() throws Exception {
    answers.put("a.json", new String[] {"500", "{\"status\":500,\"detail\":\"the coordinator failed; reference x\"}"});
    answers.put("b.json", new String[] {"200", "<html>a proxy's page</html>"});

    int failed = push("push", "--coordinator", url(), "--token-file", token.toString(), file("a.json").toString());
    int odd = push("push", "--coordinator", url(), "--token-file", token.toString(), file("b.json").toString());

    assertThat(failed).isEqualTo(PushCommand.UNREACHABLE);
    assertThat(odd).isEqualTo(PushCommand.UNREACHABLE);
    assertThat(err.toString()).contains("failed (500): the coordinator failed; reference x")
        .contains("answered 200 without a push outcome: <html>a proxy's page</html>");
  }

  @Test
  void push_coordinatorDown_exit3NamingTheAddress() throws Exception {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort(); // closed again: nothing listens there
    }

    int exit = push("push", "--coordinator", "http://127.0.0.1:" + port, "--token-file", token.toString(),
        file("a.json").toString(), file("b.json").toString());

    assertThat(exit).isEqualTo(PushCommand.UNREACHABLE);
    assertThat(err.toString()).contains("cannot reach the coordinator at http://127.0.0.1:" + port + "/ (")
        .contains("a.json and the files after it not pushed");
  }

  @Test
  void push_missingFile_exit1WithoutStoppingTheOthers() throws Exception {
    int exit = push("push", "--coordinator", url(), "--token-file", token.toString(),
        dir.resolve("nope.json").toString(), file("a.json").toString());

    assertThat(exit).isEqualTo(PushCommand.REFUSED);
    assertThat(err.toString()).contains("nope.json: no such file; not pushed");
    assertThat(requests).hasSize(1);
  }

  @Test
  void push_usageErrors_exit2() throws Exception {
    Path a = file("a.json");
    int noToken = push("push", "--coordinator", url(), a.toString());
    int badUrl = push("push", "--coordinator", "coordinator:8081", "--token-file", token.toString(), a.toString());
    int noFiles = push("push", "--coordinator", url(), "--token-file", token.toString());
    int emptyToken = push("push", "--coordinator", url(), "--token-file",
        Files.writeString(dir.resolve("empty"), "\n").toString(), a.toString());

    assertThat(List.of(noToken, badUrl, noFiles, emptyToken)).containsOnly(CommandLine.ExitCode.USAGE);
    assertThat(err.toString()).contains("no API token: pushing is a write")
        .contains("--coordinator: an http or https URL with a host").contains("must hold one token");
    assertThat(requests).isEmpty();
  }
}
