"""Document 000's claims, sections 9 to 11 (see :mod:`book_support.ledger` for what a record states)."""

from book_support.claims import AGREES, AGREES_BY_CONSTRUCTION, ASSUMED, CONTRADICTED, INHERITED, NOT_DERIVABLE, SUPPORTED, UNSOURCED, WRONG
from book_support.claims import at_least, at_most, between, close, equal, holds, rounds_to
from book_support.ledger import AT_CALL, PENDING, absent, cited, computed, stated
from book_support.worked_examples.audit import PRINTED_DIGITS


# home: ch06
stated(
    "000-removing-positional-encoding-bleu-22",
    "000 §9.2.2",
    says="removing the positional encoding: BLEU 22.8 (-5.6)",
    reason="the paper's Table 3 has no row without a positional encoding",
    verdict=UNSOURCED,
)


# home: ch07
stated(
    "000-replacing-ffn-1x1-convolution-costs",
    "000 §9.2.2",
    says="replacing the FFN by a 1x1 convolution costs 0.3 BLEU (28.1)",
    claimed=0.3,
    reason="the paper's Table 3 has no such row; the two compute the same function (table above)",
    verdict=UNSOURCED,
)


# home: ch13
stated(
    "000-70-gain-structure-30-hyperparameters",
    "000 §11.1",
    says="70 % of the gain is structure, 30 % hyperparameters",
    claimed="70 / 30",
    reason="FIXME f\"no source; §9.1's own numbers give {share_bleu:.0%} (BLEU) or {share_ppl:.0%}\"\n        \" (perplexity)\"",
    verdict=UNSOURCED,
)


# home: ch13
absent(
    "000-single-drops-add-up-about",
    "000 §9.2.2",
    says="the single drops add up (to about 12.8 BLEU): an absent effect, no interaction",
    measure="here: positions and heads",
    margin=0.1,
    why="",
    verdict=PENDING,
)


# home: ch13
computed(
    "000-ffn-1x1-convolution-0-3",
    "000 §9.2.2",
    says="FFN -> 1x1 convolution: -0.3 BLEU",
    measure="the same function, chapter 7: change 0",
    claimed=-0.3,
    rule=close(abs=0.05),
    why="",
    verdict=PENDING,
)


# home: ch13
stated(
    "000-no-positional-encoding-22-8",
    "000 §9.2.2",
    says="no positional encoding: 22.8 BLEU (-5.6)",
    claimed=22.8,
    reason="the paper has no such row; its row (E) replaces sinusoids by learned positions",
    verdict=UNSOURCED,
)


# home: ch13
stated(
    "000-no-residual-connections-23-5",
    "000 §9.2.2",
    says="no residual connections: 23.5 BLEU (-4.9)",
    claimed=23.5,
    reason="the paper has no such row (Table 3 varies no residual connection)",
    verdict=UNSOURCED,
)


# home: ch13
computed(
    "000-head-28-4-26-1",
    "000 §9.2.2",
    says="one head: 28.4 -> 26.1 BLEU",
    measure="paper Table 3 (A): 25.8 -> 24.9 on the dev set",
    claimed=AT_CALL,
    rule=close(abs=0.05),
    why="",
    verdict=PENDING,
)


# home: ch13
stated(
    "000-gap-stable-2-3-3",
    "000 §9.2.1",
    says="the gap is stable (2.3 to 3.9 BLEU) over learning rate and dropout",
    claimed="2.3-3.9",
    reason="no runs are cited; chapter 12 finds its own table's gaps run from 2.7 to 4.6",
    verdict=UNSOURCED,
)


# home: ch13
absent(
    "000-fixing-baseline-s-tuned-hyperparameters",
    "000 §9.1",
    says="fixing the baseline's tuned hyperparameters isolates the structure gain",
    measure="an absent effect: tuning the Transformer does not change the gap",
    margin=0.1,
    why="",
    verdict=PENDING,
)


# home: ch13
computed(
    "000-both-tuned-perplexity-82-paper",
    "000 §9.1.3",
    says="both tuned: perplexity 82, on the paper's scale",
    measure="Table 3: 4.33 to 6.11 per word piece",
    claimed=82,
    rule=between(4.33, 6.11),
    why="",
    verdict=PENDING,
)


# home: ch13
stated(
    "000-lstm-24-5-transformer-26",
    "000 §9.1.2",
    says="LSTM 24.5 -> Transformer 26.8 BLEU with the same hyperparameters (+2.3)",
    claimed=2.3,
    reason="the paper trains no LSTM with the Transformer's hyperparameters; no other source is given",
    verdict=UNSOURCED,
)


# home: ch14
computed(
    "000-linformer-linear-attention-drops-softmax",
    "000 §11.2",
    says="Linformer is linear attention",
    measure="drops the softmax",
    claimed=True,
    rule=equal(),
    verdict=PENDING,
)


# home: ch14
computed(
    "000-longformer-sparse-windowed-attention-linear",
    "000 §11.2",
    says="Longformer is sparse: windowed attention is linear in n",
    measure="degree",
    claimed=1,
    rule=equal(),
    verdict=PENDING,
)


# home: ch14
computed(
    "000-n-10-000-expensive-attention",
    "000 §11.2",
    says="n = 10 000 is expensive",
    measure="attention's share of a layer's FLOPs",
    rule=at_least(0.5),
    why="",
    verdict=PENDING,
)


# home: ch14
computed(
    "000-self-attention-costs-o-n",
    "000 §11.2",
    says="self-attention costs O",
    measure="n^2",
    claimed=2,
    rule=equal(),
    verdict=PENDING,
)


# home: ch15
computed(
    "000-6-whisper-s-title-ends",
    "000 refs",
    says="[6] Whisper's title ends '...Large-Scale Supervised Training'",
    measure="FIXME",
    claimed="Large-Scale Supervised Training",
    rule=equal(),
    verdict=PENDING,
)


# home: ch15
computed(
    "000-2-bert-appeared-acl-2019",
    "000 refs",
    says="[2] BERT appeared at ACL 2019",
    measure="FIXME",
    claimed="ACL 2019",
    rule=equal(),
    verdict=PENDING,
)


# home: ch15
computed(
    "000-state-art-translation-between-languages",
    "000 §10.4",
    says="state of the art in translation between languages",
    measure="target languages other than English Whisper translates into; it translates X -> English",
    claimed=1,
    rule=at_least(1),
    why="",
    verdict=PENDING,
)


# home: ch15
computed(
    "000-more-100-languages-radford-et",
    "000 §10.4",
    says="more than 100 languages",
    measure="Radford et al. 2023: English and 96 others",
    claimed=100,
    rule=at_least(100),
    why="",
    verdict=PENDING,
)


# home: ch15
computed(
    "000-whisper-encoder-decoder-mel-frames",
    "000 §10.4",
    says="Whisper: encoder-decoder on Mel frames; 30 s = 3000 frames -> encoder positions",
    measure="FIXME",
    claimed=1500,
    rule=equal(),
    verdict=PENDING,
)


# home: ch15
computed(
    "000-vit-used-classification-detection-generation",
    "000 §10.3",
    says="ViT is used for classification, detection, generation",
    measure="tasks evaluated in Dosovitskiy et al. 2021 §4; detection is future work, §5",
    claimed=3,
    rule=equal(),
    verdict=PENDING,
)


# home: ch15
computed(
    "000-vit-replaces-cnn-s-convolutions",
    "000 §10.3",
    says="ViT replaces the CNN's convolutions",
    measure="all but its patch projection, a Conv2d",
    claimed=1,
    rule=equal(),
    verdict=PENDING,
)


# home: ch15
computed(
    "000-vit-reads-224-x-224",
    "000 §10.3",
    says="ViT reads 224 x 224 images as 14 x 14 patches of side 16",
    measure="FIXME",
    claimed=AT_CALL,
    rule=equal(),
    verdict=PENDING,
)


# home: ch15
computed(
    "000-gpt-3-has-175-billion",
    "000 §10.2",
    says="GPT-3 has 175 billion parameters",
    measure="from Brown et al. 2020, Table 2.1",
    claimed=175000000000.0,
    rule=close(rel=0.01),
    why="",
    verdict=PENDING,
)


# home: ch15
computed(
    "000-gpt-generation-translation-dialogue-such",
    "000 §10.2",
    says="GPT is for generation, translation, dialogue",
    measure="such tasks among GPT-1's four groups, Radford et al. 2018, Table 1: NLI, QA, similarity, classification",
    claimed=1,
    rule=at_least(1),
    why="",
    verdict=PENDING,
)


# home: ch15
computed(
    "000-causal-lm-output-position-0",
    "000 §10.2",
    says="causal LM: the output at position 0 does not see later tokens",
    measure="FIXME",
    claimed=False,
    rule=equal(),
    verdict=PENDING,
)


# home: ch15
computed(
    "000-gpt-uses-decoder-without-cross",
    "000 §10.2",
    says="GPT uses only the decoder",
    measure="without cross-attention: the encoder-only's parameters",
    claimed=True,
    rule=equal(),
    verdict=PENDING,
)


# home: ch15
computed(
    "000-bert-improved-glue-bleu-more",
    "000 §10.1",
    says="BERT improved GLUE 'BLEU' by more than 15 %",
    measure="Devlin et al. Table 1, relative gain",
    claimed=15,
    rule=at_least(15),
    why="",
    verdict=PENDING,
)


# home: ch15
computed(
    "000-bert-serves-classification-ner-qa",
    "000 §10.1",
    says="BERT serves classification, NER and QA",
    measure="task kinds in Devlin et al. §4, §5.3",
    claimed=3,
    rule=equal(),
    verdict=PENDING,
)


# home: ch15
computed(
    "000-masked-lm-hide-words-predict",
    "000 §10.1",
    says="masked LM: hide words, predict them from both sides",
    measure="test: hidden first-half symbols, known only from the right, restored at least twice as often as chance by every encoder",
    claimed=AT_CALL,
    rule=at_least(2 / 8),  # twice chance for an alphabet of 8
    why="",
    verdict=PENDING,
)


# home: ch15
computed(
    "000-bert-made-encoder-bidirectional-so",
    "000 §10.1",
    says="BERT made the encoder bidirectional",
    measure="so the 2017 encoder did not see the right context",
    claimed=False,
    rule=equal(),
    verdict=PENDING,
)


# home: errata
stated(
    "000-references",
    "000 references",
    says="BERT at ACL 2019; GPT-2 by Radford, Narasimhan, Salimans; Whisper '... Large-Scale Supervised Training'",
    reason="BERT appeared at NAACL 2019; the GPT-2 and Whisper author lists and titles differ (see the entry)",
    verdict=UNSOURCED,
)


# home: errata
stated(
    "000-linformer",
    "000 §11.2",
    says="Linformer is linear attention",
    reason="Linformer projects keys and values to a fixed length, a low-rank method that keeps the softmax (Wang et al. 2020); 'linear attention' is Katharopoulos et al. 2020",
    verdict=UNSOURCED,
)


# home: errata
computed(
    "000-seventy-thirty",
    "000 §11.1",
    says="70 % structure, 30 % hyperparameters",
    measure="structure's share by §9.1's own BLEU numbers",
    claimed=0.7,
    rule=close(abs=0.05),
    why="",
    verdict=PENDING,
)


# home: errata
stated(
    "000-whisper-translation",
    "000 §10.4",
    says="Whisper's translation is state of the art",
    reason="Whisper translates into English only; its best X->English result is zero-shot (Radford et al. 2023, §3.5)",
    verdict=UNSOURCED,
)


# home: errata
computed(
    "000-whisper",
    "000 §10.4",
    says="Whisper covers more than 100 languages",
    measure="English + others, Radford et al. 2023, §2",
    claimed=100,
    rule=at_least(100),
    why="",
    verdict=PENDING,
)


# home: errata
stated(
    "000-vit-claims",
    "000 §10.3",
    says="ViT does detection and generation and beats CNNs on ImageNet-21k with higher parallel efficiency",
    reason="the ViT paper evaluates classification only and names detection as future work (§5)",
    verdict=UNSOURCED,
)


# home: errata
stated(
    "000-gpt-tasks",
    "000 §10.2",
    says="GPT suits generation: text, translation, dialogue",
    reason="GPT-1 was fine-tuned and evaluated on understanding tasks (Radford et al. 2018, §4)",
    verdict=UNSOURCED,
)


# home: errata
stated(
    "000-bert",
    "000 §10.1",
    says="BERT improves the BLEU score on GLUE",
    reason="GLUE has no BLEU score; BERT reports a GLUE score of 80.5, 7.7 points above the best before it (Devlin et al. 2019, abstract)",
    verdict=UNSOURCED,
)


# home: errata
computed(
    "000-ablation-table",
    "000 §9.2.2",
    says="from 28.4 BLEU, one head 26.1 (-2.3), no residuals 23.5, no positions 22.8, 1x1 convolutions 28.1, together 12.8: the single head's cost",
    measure="paper Table 3, row A: 25.8 -> 24.9",
    claimed=2.3,
    rule=close(abs=0.05),
    why="",
    verdict=PENDING,
)


# home: errata
computed(
    "000-sensitivity-table",
    "000 §9.2.1",
    says="the gap is stable at 2.3-3.9 BLEU",
    measure="gaps of its own table outside [2.3, 3.9]",
    claimed=0,
    rule=equal(),
    verdict=PENDING,
)


# home: errata
stated(
    "000-structure-gain",
    "000 §9.1",
    says="LSTM 24.5 / Transformer 26.8 / tuned 28.4 BLEU, PPL 120 / 95 / 82 on WMT 2014 En-De",
    reason="no source; the paper has no such experiment, its 28.4 is the big model's test BLEU (Table 2) and its perplexities lie between 4.33 and 6.11 (Table 3)",
    verdict=UNSOURCED,
)
