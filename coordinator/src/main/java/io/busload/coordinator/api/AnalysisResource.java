package io.busload.coordinator.api;

import static io.busload.coordinator.api.Replies.json;
import static io.busload.coordinator.api.Requests.param;
import static io.busload.coordinator.api.Requests.required;

import io.busload.coordinator.store.ComparisonStore;
import io.vertx.core.Vertx;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.UUID;

/**
 * {@code GET /api/comparisons}: one kernel and params across device models, each against its two ceilings; and
 * {@code GET /api/regressions}: the changes the regression watch recorded.
 */
public record AnalysisResource(Vertx vertx, ComparisonStore analysis, AnalysisPool pool) implements ApiResource {
  @Override
  public void mount(Mounts api) {
    api.at("/api/comparisons").get("/").handler(this::comparison);
    api.at("/api/regressions").get("/").handler(this::regressions);
  }

  /**
   * One model's row of a comparison: bandwidth and its fractions of the two ceilings (null when unknown): the
   * measured ceiling of its run (the best valid bandwidth of a run that timed memcpy-d2d, and the kernel that set
   * it) and the theoretical peak.
   */
  record ComparisonView(String model, String deviceId, UUID resultId, String runId, Instant measuredAt, double bandwidth,
      Double ceilingBandwidth, String ceilingKernel, Double fractionOfCeiling, Double theoreticalPeak,
      Double fractionOfPeak, double relativeSpread) {

    static ComparisonView of(ComparisonStore.ComparisonRow r) {
      Double ceiling = r.ceilingBandwidth();
      Double peak = r.theoreticalPeak() > 0 ? r.theoreticalPeak() : null;
      return new ComparisonView(r.model(), r.deviceId(), r.resultId(), r.runId(), r.measuredAt(), r.bandwidth(),
          ceiling, r.ceilingKernel(), ceiling == null || ceiling <= 0 ? null : r.bandwidth() / ceiling, peak,
          peak == null ? null : r.bandwidth() / peak, r.relativeSpread());
    }
  }

  record Comparison(String kernel, String params, List<ComparisonView> models) {}

  private void comparison(RoutingContext ctx) {
    String kernel = required(ctx, "kernel", Requests.KERNEL_HINT);
    String params = required(ctx, "params", Requests.PARAMS_HINT);
    pool.run(() -> analysis.comparison(kernel, params)).onSuccess(rows -> json(ctx.response(), 200,
        new Comparison(kernel, params, rows.stream().map(ComparisonView::of).toList()))).onFailure(ctx::fail);
  }

  private void regressions(RoutingContext ctx) {
    String kind = param(ctx, "kind");
    if (kind != null && !kind.equalsIgnoreCase("regression") && !kind.equalsIgnoreCase("improvement")) {
      throw new BadInput("kind", "unknown kind '" + kind + "'; known: regression, improvement");
    }
    String device = param(ctx, "device");
    String kernel = param(ctx, "kernel");
    int limit = Requests.limit(ctx);
    pool.run(() -> analysis.changes(device, kernel, kind == null ? null : kind.toUpperCase(Locale.ROOT), limit))
        .onSuccess(changes -> json(ctx.response(), 200, changes)).onFailure(ctx::fail);
  }
}
