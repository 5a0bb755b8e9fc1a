package io.busload.dashboard.security;

import static org.assertj.core.api.Assertions.assertThat;

import io.busload.dashboard.Application;
import io.busload.dashboard.BrowserFleet;
import io.busload.testsupport.LoopbackCluster;
import java.net.CookieManager;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.security.crypto.bcrypt.BCryptPasswordEncoder;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Attacker test of the dashboard's real login endpoint ({@code POST /login}, Spring Security behind Vaadin's
 * configurer): after five wrong passwords for one user, the right password is refused too, and a user who was not
 * guessed at still gets in. No coordinator is needed to log in, so none runs.
 */
@SpringBootTest(classes = Application.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = "vaadin.productionMode=true")
class LoginThrottleHttpTest {
  private static final LoopbackCluster CLUSTER = new LoopbackCluster("busload-login-throttle");
  private static final String PASSWORD = "operator-" + UUID.randomUUID();

  @DynamicPropertySource
  static void settings(DynamicPropertyRegistry registry) throws Exception {
    Path users = Files.createTempFile("busload-users-", ".properties");
    BCryptPasswordEncoder bcrypt = new BCryptPasswordEncoder();
    Files.writeString(users, "operator={bcrypt}" + bcrypt.encode(PASSWORD) + ",OPERATOR\n"
        + "viewer={bcrypt}" + bcrypt.encode(PASSWORD) + ",OPERATOR\n");
    BrowserFleet.dashboardSettings(registry, CLUSTER, () -> "http://127.0.0.1:9");
    registry.add("busload.users-file", users::toString);
  }

  @LocalServerPort
  int port;

  /** One browser's worth of cookies per login, as a guesser starting afresh each time would have. */
  private HttpResponse<String> login(String user, String password) throws Exception {
    HttpClient client = HttpClient.newBuilder().cookieHandler(new CookieManager())
        .followRedirects(HttpClient.Redirect.NEVER).build();
    String form = "username=" + URLEncoder.encode(user, StandardCharsets.UTF_8) + "&password="
        + URLEncoder.encode(password, StandardCharsets.UTF_8);
    return client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/login"))
        .header("Content-Type", "application/x-www-form-urlencoded")
        .POST(HttpRequest.BodyPublishers.ofString(form)).build(), HttpResponse.BodyHandlers.ofString());
  }

  private static String where(HttpResponse<String> response) {
    assertThat(response.statusCode()).as("a redirect after the login: %s", response.body()).isEqualTo(302);
    return response.headers().firstValue("Location").orElse("");
  }

  @Test
  void wrongPasswords_fiveForOneUser_thenRightPasswordRefused_otherUserStillLogsIn() throws Exception {
    assertThat(where(login("viewer", PASSWORD))).as("control: the right password logs in").doesNotContain("error");
    for (int i = 0; i < LoginThrottle.PER_USER; i++) {
      assertThat(where(login("operator", "guess-" + i))).as("wrong password %d", i + 1).contains("login?error");
    }

    String after = where(login("operator", PASSWORD));
    String other = where(login("viewer", PASSWORD));

    assertThat(after).as("the right password after five wrong ones").contains("login?error");
    assertThat(other).as("a user nobody guessed at").doesNotContain("error");
    System.out.printf("login throttle over HTTP: 5 wrong passwords for 'operator' -> the right one refused (%s);"
        + " 'viewer' logs in (%s)%n", after, other);
  }
}
