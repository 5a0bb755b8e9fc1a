package io.busload.coordinator.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.busload.coordinator.Coordinator;
import io.busload.coordinator.Http;
import io.vertx.core.Vertx;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code ./busload token create|list|revoke} (the agent's command line, in-process) against a real coordinator: the
 * secret is printed once and alone, list never shows it, revoke takes effect with no restart, and a token that is not
 * an admin's manages nothing.
 */
class TokenCliTest {
  private static final String SWEEP = "{\"suite\":\"stride\"}";

  @TempDir Path dir;
  private Vertx vertx;
  private Coordinator coordinator;
  private Http http;
  private Path admin;
  private StringWriter out;
  private StringWriter err;

  @BeforeEach
  void start() throws Exception {
    vertx = Vertx.vertx();
    coordinator = Coordinator.deploy(vertx, RestApiTestSettings.of(dir.resolve("data"))).await(30, TimeUnit.SECONDS);
    http = new Http(coordinator.httpPort());
    admin = Files.writeString(dir.resolve("admin-token"), Http.TOKEN + "\n");
  }

  @AfterEach
  void stop() throws Exception {
    coordinator.stop().await(20, TimeUnit.SECONDS);
    vertx.close().await(20, TimeUnit.SECONDS);
  }

  private int token(Path tokenFile, String... args) {
    out = new StringWriter();
    err = new StringWriter();
    CommandLine cli = io.busload.agent.Main.commandLine();
    cli.setOut(new PrintWriter(out));
    cli.setErr(new PrintWriter(err));
    String[] all = new String[args.length + 5];
    all[0] = "token";
    System.arraycopy(args, 0, all, 1, args.length);
    all[args.length + 1] = "--coordinator";
    all[args.length + 2] = "http://127.0.0.1:" + coordinator.httpPort();
    all[args.length + 3] = "--token-file";
    all[args.length + 4] = tokenFile.toString();
    return cli.execute(all);
  }

  @Test
  void createListRevoke_secretShownOnceAlone_revokedRefusedWithoutRestart() throws Exception {
    assertThat(token(admin, "create", "--name", "ci", "--scope", "push", "--expires-in", "30d")).as(err.toString())
        .isZero();
    String secret = out.toString().strip();
    assertThat(secret).as("the secret alone on standard output").hasSize(43).doesNotContain(" ");
    assertThat(err.toString()).contains("'ci'").contains("push").contains("shown only now").doesNotContain(secret);
    assertThat(http.write("POST", "/api/sweeps", SWEEP, "Bearer " + secret).statusCode()).as("push only")
        .isEqualTo(403);

    assertThat(token(admin, "list")).as(err.toString()).isZero();
    assertThat(out.toString()).contains("ci").contains("push").contains("active").contains("tests")
        .doesNotContain(secret).doesNotContain(ApiTokens.sha256Hex(secret));

    assertThat(token(admin, "revoke", "ci")).as(err.toString()).isZero();
    assertThat(out.toString()).contains("revoked 'ci'");
    assertThat(http.write("POST", "/api/pushes?host=ci", "[]", "Bearer " + secret).statusCode())
        .as("refused at once by the coordinator that revoked it").isEqualTo(401);
    assertThat(token(admin, "list")).isZero();
    assertThat(out.toString().lines().filter(l -> l.startsWith("ci ")).findFirst().orElseThrow()).contains("revoked");
  }

  @Test
  void create_byPushToken_exit4_byAdminWithTakenNameOrBadScope_exit1NamingIt() throws Exception {
    assertThat(token(admin, "create", "--name", "ci", "--scope", "push")).isZero();
    Path ci = Files.writeString(dir.resolve("ci-token"), out.toString());

    assertThat(token(ci, "create", "--name", "mine", "--scope", "admin")).isEqualTo(4);
    assertThat(err.toString()).contains("403").contains("'admin' scope");
    assertThat(token(ci, "list")).isEqualTo(4);
    assertThat(token(admin, "create", "--name", "ci", "--scope", "read")).isEqualTo(1);
    assertThat(err.toString()).contains("409").contains("(name)");
    assertThat(token(admin, "create", "--name", "x", "--scope", "root")).isEqualTo(1);
    assertThat(err.toString()).contains("(scopes)").contains("unknown scope 'root'");
    assertThat(token(admin, "revoke", "nobody")).isEqualTo(1);
    assertThat(token(admin, "create", "--name", "y", "--scope", "read", "--expires-in", "soon")).isEqualTo(2);
    assertThat(err.toString()).contains("--expires-in");
  }
}
