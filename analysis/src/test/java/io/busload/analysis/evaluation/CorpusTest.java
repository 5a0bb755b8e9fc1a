package io.busload.analysis.evaluation;

import static org.assertj.core.api.Assertions.assertThat;

import io.busload.analysis.evaluation.LabelledSeries.Kind;
import java.util.List;
import org.junit.jupiter.api.Test;

class CorpusTest {

  @Test
  void generate_sameSeed_sameValues() {
    List<LabelledSeries> a = Corpus.generate(5, 2);
    List<LabelledSeries> b = Corpus.generate(5, 2);
    assertThat(a).hasSameSizeAs(b);
    for (int i = 0; i < a.size(); i++) {
      assertThat(a.get(i).values()).containsExactly(b.get(i).values());
    }
    assertThat(Corpus.generate(6, 2).getFirst().values()).isNotEqualTo(a.getFirst().values());
  }

  @Test
  void generate_everyKindWithItsTruth() {
    List<LabelledSeries> corpus = Corpus.generate(1, 3);
    assertThat(corpus).filteredOn(s -> s.kind() == Kind.STEP).hasSize(4 * 6 * 3)
        .allSatisfy(s -> assertThat(s.changes()).hasSize(1));
    assertThat(corpus).filteredOn(s -> s.kind() != Kind.STEP).allSatisfy(s -> assertThat(s.changes()).isEmpty());
    assertThat(corpus).extracting(LabelledSeries::kind).contains(Kind.values());
    LabelledSeries step = corpus.getFirst();
    int at = step.changes().getFirst();
    double before = java.util.Arrays.stream(step.values(), 0, at).average().orElseThrow();
    double after = java.util.Arrays.stream(step.values(), at, step.values().length).average().orElseThrow();
    assertThat((after - before) / before).isCloseTo(step.step(), org.assertj.core.api.Assertions.within(0.001));
  }
}
