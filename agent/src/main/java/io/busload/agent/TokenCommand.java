package io.busload.agent;

import com.fasterxml.jackson.databind.JsonNode;
import io.busload.protocol.JsonCodec;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code token create|list|revoke}: the coordinator's REST API tokens, managed through its {@code /api/tokens} with an
 * admin token, so it works from any host that reaches the API (over HTTPS off loopback) and never opens the database.
 * A new token's secret is printed once, alone on standard output, and kept nowhere else; the coordinator keeps only
 * its SHA-256.
 */
@Command(name = "token", mixinStandardHelpOptions = true,
    description = "Create, list and revoke the coordinator's REST API tokens (needs an admin token).",
    subcommands = {TokenCommand.Create.class, TokenCommand.ListTokens.class, TokenCommand.Revoke.class},
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {"0:done", "1:refused (a bad name or scope, a name taken, an unknown token): the message says"
        + " which", "2:wrong usage, or no admin token", "3:the coordinator cannot be reached, or failed",
        "4:the admin token was refused (401), or is not an admin token (403)"})
final class TokenCommand implements Runnable {
  static final int REFUSED = 1;
  static final int UNREACHABLE = 3;
  static final int UNAUTHORIZED = 4;
  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  @Spec
  CommandSpec spec;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "missing command: create, list or revoke");
  }

  /** Where the coordinator is and how to reach it, shared by the three commands. */
  static final class Target {
    @Spec(Spec.Target.MIXEE)
    CommandSpec spec;

    @Option(names = "--coordinator", paramLabel = "URL", description = "The coordinator's REST API (default:"
        + " $BUSLOAD_COORDINATOR_URL, else http://127.0.0.1:8081)")
    String coordinator;

    @Mixin
    CoordinatorAccess access;

    URI base() {
      String given = coordinator;
      if (given == null) {
        String env = System.getenv("BUSLOAD_COORDINATOR_URL");
        given = env != null && !env.isBlank() ? env : "http://127.0.0.1:8081";
      }
      try {
        return CoordinatorApi.base(given);
      } catch (IllegalArgumentException e) {
        throw usage(e.getMessage());
      }
    }

    /** The admin token's file is read, the token never echoed: it stays out of messages and the process list. */
    String token() {
      try {
        return access.token("no admin token: give --token-file FILE or set BUSLOAD_API_TOKEN_FILE");
      } catch (IllegalArgumentException e) {
        throw usage(e.getMessage());
      }
    }

    HttpClient client() {
      try {
        return access.client(base(), Duration.ofSeconds(10));
      } catch (IllegalArgumentException e) {
        throw usage(e.getMessage());
      }
    }

    CommandLine.ParameterException usage(String message) {
      return new CommandLine.ParameterException(spec.commandLine(), message);
    }

    /**
     * Sends {@code method path} with {@code body} (JSON, or null) and the admin token. Returns the answer's JSON for
     * a 2xx; otherwise prints why and returns null, leaving the exit code in {@code exit[0]}.
     */
    JsonNode send(String method, String path, Object body, int[] exit) throws InterruptedException {
      PrintWriter err = spec.commandLine().getErr();
      URI base = base();
      String token = token();
      HttpRequest.Builder request = HttpRequest.newBuilder(base.resolve(path)).timeout(TIMEOUT)
          .header("Accept", "application/json").header("Authorization", "Bearer " + token);
      if (body != null) {
        request.header("Content-Type", "application/json")
            .method(method, HttpRequest.BodyPublishers.ofByteArray(JsonCodec.toJson(body)));
      } else {
        request.method(method, HttpRequest.BodyPublishers.noBody());
      }
      HttpResponse<String> response;
      try {
        response = client().send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
      } catch (IOException e) {
        err.println("busload token: cannot reach the coordinator at " + base + " (" + e.getClass().getSimpleName()
            + (e.getMessage() == null ? "" : ": " + e.getMessage()) + ")");
        err.flush();
        exit[0] = UNREACHABLE;
        return null;
      }
      JsonNode json;
      try {
        json = JsonCodec.MAPPER.readTree(response.body());
      } catch (IOException e) {
        json = null;
      }
      int status = response.statusCode();
      if (status >= 200 && status < 300 && json != null) {
        return json;
      }
      String detail = json != null && json.hasNonNull("detail") ? json.get("detail").asText()
          : "answered " + status;
      if (status == 401 || status == 403) {
        err.println("busload token: the coordinator at " + base + " refused the admin token (" + status + "): "
            + detail);
        exit[0] = UNAUTHORIZED;
      } else if (status >= 400 && status < 500) {
        String field = json != null && json.hasNonNull("field") ? " (" + json.get("field").asText() + ")" : "";
        err.println("busload token: refused (" + status + ")" + field + ": " + detail);
        exit[0] = REFUSED;
      } else {
        err.println("busload token: the coordinator at " + base + " failed (" + status + "): " + detail);
        exit[0] = UNREACHABLE;
      }
      err.flush();
      return null;
    }
  }

  @Command(name = "create", mixinStandardHelpOptions = true,
      description = {"Make a token and print its secret, once, alone on standard output (the coordinator keeps only"
          + " its hash): ./busload token create --name ci --scope push > ci-token",
          "Scopes: read (reads), push (push result files), sweep (start sweeps, manage schedules, accept changes),"
              + " admin (all of them, and tokens)."})
  static final class Create implements Callable<Integer> {
    private static final Pattern DURATION = Pattern.compile("([1-9][0-9]{0,5})([mhdw])");

    @Mixin Target target;

    @Option(names = "--name", required = true, description = "The token's name: who or what holds it (ci-push)")
    String name;

    @Option(names = "--scope", required = true, split = ",", paramLabel = "SCOPE",
        description = "read, push, sweep or admin; several with commas (read,push)")
    List<String> scopes;

    @Option(names = "--expires-in", paramLabel = "N[m|h|d|w]",
        description = "Expire after this long: 90d, 12h, 2w (default: never)")
    String expiresIn;

    @Option(names = "--expires-at", paramLabel = "INSTANT",
        description = "Expire at this instant, such as 2027-01-01T00:00:00Z (default: never)")
    String expiresAt;

    @Override
    public Integer call() throws InterruptedException {
      Map<String, Object> body = new LinkedHashMap<>();
      body.put("name", name);
      body.put("scopes", scopes.stream().map(s -> s.strip().toLowerCase(Locale.ROOT)).toList());
      Instant expires = expires();
      if (expires != null) {
        body.put("expiresAt", expires.toString());
      }
      int[] exit = {0};
      JsonNode made = target.send("POST", "api/tokens", body, exit);
      if (made == null) {
        return exit[0];
      }
      PrintWriter err = target.spec.commandLine().getErr();
      err.println("busload token: made '" + made.path("name").asText() + "' with scope(s) "
          + String.join(",", texts(made.path("scopes"))) + ", expires " + (made.hasNonNull("expiresAt")
          ? made.get("expiresAt").asText() : "never") + "; its secret follows, shown only now");
      err.flush();
      PrintWriter out = target.spec.commandLine().getOut();
      out.println(made.path("token").asText());
      out.flush();
      return 0;
    }

    private Instant expires() {
      if (expiresIn != null && expiresAt != null) {
        throw target.usage("--expires-in and --expires-at: give one of them");
      }
      if (expiresAt != null) {
        try {
          return Instant.parse(expiresAt.strip());
        } catch (DateTimeParseException e) {
          throw target.usage("--expires-at: not an ISO-8601 instant such as 2027-01-01T00:00:00Z: '" + expiresAt
              + "'");
        }
      }
      if (expiresIn != null) {
        Matcher m = DURATION.matcher(expiresIn.strip());
        if (!m.matches()) {
          throw target.usage("--expires-in: a number and m, h, d or w, such as 90d; got '" + expiresIn + "'");
        }
        long n = Long.parseLong(m.group(1));
        Duration d = switch (m.group(2)) {
          case "m" -> Duration.ofMinutes(n);
          case "h" -> Duration.ofHours(n);
          case "d" -> Duration.ofDays(n);
          default -> Duration.ofDays(7 * n);
        };
        return Instant.now().plus(d);
      }
      return null;
    }
  }

  @Command(name = "list", mixinStandardHelpOptions = true,
      description = "List tokens: name, scopes, when and by whom made, expiry, state. Never a secret or a hash.")
  static final class ListTokens implements Callable<Integer> {
    @Mixin Target target;

    @Override
    public Integer call() throws InterruptedException {
      int[] exit = {0};
      JsonNode tokens = target.send("GET", "api/tokens", null, exit);
      if (tokens == null) {
        return exit[0];
      }
      PrintWriter out = target.spec.commandLine().getOut();
      String format = "%-24s %-22s %-20s %-16s %-20s %s%n";
      out.printf(format, "NAME", "SCOPES", "CREATED", "BY", "EXPIRES", "STATE");
      for (JsonNode t : tokens) {
        String state = t.hasNonNull("revokedAt") ? "revoked " + minute(t.get("revokedAt").asText())
            : t.path("expired").asBoolean() ? "expired" : "active";
        out.printf(format, t.path("name").asText(), String.join(",", texts(t.path("scopes"))),
            minute(t.path("createdAt").asText()), t.path("createdBy").asText(),
            t.hasNonNull("expiresAt") ? minute(t.get("expiresAt").asText()) : "never", state);
      }
      out.flush();
      return 0;
    }

    private static String minute(String instant) {
      return instant.length() >= 16 ? instant.substring(0, 16).replace('T', ' ') + "Z" : instant;
    }
  }

  @Command(name = "revoke", mixinStandardHelpOptions = true,
      description = "Revoke a token: every coordinator of the store refuses it within seconds, with no restart."
          + " Its name is not given again.")
  static final class Revoke implements Callable<Integer> {
    @Mixin Target target;

    @Parameters(index = "0", paramLabel = "NAME", description = "The token's name, as list shows it")
    String name;

    @Override
    public Integer call() throws InterruptedException {
      int[] exit = {0};
      JsonNode revoked = target.send("DELETE", "api/tokens/" + URLEncoder.encode(name, StandardCharsets.UTF_8)
          .replace("+", "%20"), null, exit);
      if (revoked == null) {
        return exit[0];
      }
      PrintWriter out = target.spec.commandLine().getOut();
      out.println("revoked '" + revoked.path("name").asText() + "' at " + revoked.path("revokedAt").asText()
          + "; every coordinator refuses it within seconds");
      out.flush();
      return 0;
    }
  }

  private static List<String> texts(JsonNode array) {
    List<String> texts = new java.util.ArrayList<>();
    array.forEach(n -> texts.add(n.asText()));
    return texts;
  }
}
