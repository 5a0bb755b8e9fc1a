package io.busload.protocol.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.WebSocketClientOptions;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;
import org.junit.jupiter.api.Test;

/**
 * {@link FleetTls#bridgeClient}: key material held in memory (the simulator's agents) gets the same checks
 * as a member directory's, whatever the options held before.
 */
class FleetTlsOptionsTest {
  @Test
  void bridgeClient_laxOptions_tlsOnTrustAllOffHostChecked() {
    PemKeyCertOptions key = new PemKeyCertOptions().addKeyValue(Buffer.buffer("k")).addCertValue(Buffer.buffer("c"));
    PemTrustOptions trusted = new PemTrustOptions().addCertValue(Buffer.buffer("ca"));
    WebSocketClientOptions lax = new WebSocketClientOptions().setSsl(false).setTrustAll(true).setVerifyHost(false);

    WebSocketClientOptions options = FleetTls.bridgeClient(lax, key, trusted);

    assertThat(options.isSsl()).isTrue();
    assertThat(options.isTrustAll()).isFalse();
    assertThat(options.isVerifyHost()).isTrue();
    assertThat(options.getKeyCertOptions()).isEqualTo(key);
    assertThat(options.getTrustOptions()).isEqualTo(trusted);
  }

  @Test
  void bridgeClient_noTrustedCa_refused() {
    assertThatThrownBy(() -> FleetTls.bridgeClient(new WebSocketClientOptions(), new PemKeyCertOptions(), null))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("trusted");
  }
}
