package io.busload.dashboard.fleet.ui;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import com.vaadin.flow.component.UI;
import io.busload.dashboard.coordinator.CoordinatorClient;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The Fleet view's warning of certificates near expiry, without a browser: the view reads {@code /api/certificates}
 * from a real HTTP server that answers as the coordinator does ({@code CertificateExpiryNoticeTest} checks the
 * coordinator's side), and shows each certificate with its days left; with none near, or a coordinator that serves
 * no such list, it shows nothing and the fleet is still shown.
 */
class FleetViewCertificatesTest {
  private static final String AGENT_NEAR = """
      {"warnDays":30,"nearExpiry":[{"role":"agent","subject":"CN=exp-a1,OU=agent,O=Busload fleet 2b8d",
        "serial":"76154e622ad78862","notAfter":"2026-12-07T15:53:56Z","daysLeft":9}]}
      """;
  private HttpServer server;
  /** Held here: Vaadin keeps the current UI by a weak reference only. */
  private final UI ui = new UI();

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    answer("/api/agents", "[]");
    answer("/api/runs", "[]");
    answer("/api/cohort-flags", "{\"flags\":[]}");
    answer("/api/pushes/devices", "[]");
  }

  @AfterEach
  void stop() {
    server.stop(0);
    UI.setCurrent(null);
  }

  private void answer(String path, String json) {
    server.createContext(path, exchange -> {
      byte[] body = json.getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().add("Content-Type", "application/json");
      exchange.sendResponseHeaders(200, body.length);
      exchange.getResponseBody().write(body);
      exchange.close();
    });
  }

  /** The view in a UI of its own, as Vaadin builds one for a browser tab, with no browser behind it. */
  private FleetView view() {
    server.start();
    UI.setCurrent(ui);
    return new FleetView(new CoordinatorClient("http://127.0.0.1:" + server.getAddress().getPort()));
  }

  @Test
  void fleetView_agentCertificateNineDaysFromExpiry_warningNamesItAndItsDaysLeft() {
    answer("/api/certificates", AGENT_NEAR);
    FleetView view = view();

    view.refresh();

    assertThat(view.certificates.isVisible()).isTrue();
    assertThat(view.certificates.getText()).isEqualTo("\u26a0 The agent certificate CN=exp-a1,OU=agent,O=Busload"
        + " fleet 2b8d expires in 9 days (2026-12-07): renew it with ./busload certs renew.");
  }

  @Test
  void fleetView_noneNearExpiry_noWarning() {
    answer("/api/certificates", "{\"warnDays\":30,\"nearExpiry\":[]}");
    FleetView view = view();

    view.refresh();

    assertThat(view.certificates.isVisible()).isFalse();
  }

  @Test
  void fleetView_coordinatorWithoutTheList_noWarningFleetStillRead() {
    FleetView view = view();

    view.refresh();

    assertThat(view.certificates.isVisible()).isFalse();
  }
}
