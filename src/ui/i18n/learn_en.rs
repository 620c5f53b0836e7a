//! The Learn mode in English.

use super::learn::{
    CacheLessonTexts, ChapterText, CircuitsLessonTexts, DeltaLessonTexts, ExerciseText,
    ExperimentTexts, HeadVariances, HybridsLessonTexts, Knocked, LearnTexts, ModernTexts,
};

pub const LEARN: LearnTexts = LearnTexts {
    learn: "Learn",
    lab: "Lab",
    contents: "Chapters",
    chapter_of: |i, n| format!("Chapter {i} of {n}"),
    previous: "← Previous",
    next: "Next →",
    present: "Present",
    end_present: "End presentation",
    present_help: "← and → move between chapters; Esc ends the presentation.",
    try_this: "Try this",
    predict: "Predict first",
    reveal: "Just show me",
    right: "Right.",
    not_quite: "Not quite.",
    answer_first: "Commit to an answer above, and the experiment shows what really happens.",
    experiment: "The experiment, on your sentence",
    views: "The lab's views for this chapter",
    score: |right, all| format!("{right} of {all} questions answered right"),
    your_answer: "Your answer (it stays on this page)",
    compare: "Compare with the worked answer",
    worked: "Just show me the worked answer",
    reset: "Forget my answers",
    stored_here: "Your progress stays in this browser; nothing is sent anywhere.",
    query: "Query",
    open_in_lab: "Open in the full lab",
    chapters: [
        ChapterText {
            title: "Tokens become vectors",
            body: &[
                "Attention never sees letters. The sentence is cut into tokens, and each token is looked up in an embedding table E: one row of d_model numbers per token of the vocabulary.",
                "A lookup knows what a token is but not where it stands, and attention by itself has no sense of order. So a position vector P is added: X = E + P. Every later step reads X.",
            ],
            try_this: "Type a sentence that uses one word twice, then compare the two rows of E and of X below.",
            question: "The same word appears twice in a sentence. Are its two rows of X equal?",
            choices: [
                "Yes: the same word gives the same vector",
                "No: the positions differ, so X differs",
                "No: each lookup is a new random draw",
            ],
            explain: "The embedding rows are identical (one row per vocabulary entry), but P depends on the position, so the two rows of X = E + P differ. That is the only way the model can tell the two occurrences apart.",
        },
        ChapterText {
            title: "Queries, keys and values",
            body: &[
                "Each token's x is projected three times. The query q = x W_Q says what this token is looking for; the key k = x W_K says what it offers to be found by; the value v = x W_V is what it hands over once it is chosen.",
                "The match between token i looking and token j being found is the dot product q_i · k_j. Because W_Q and W_K are different matrices, how much i looks for j need not equal how much j looks for i.",
            ],
            try_this: "Pick a query token below and read which keys it matches best; then compare the QKᵀ heatmap above and below its diagonal.",
            question: "Q and K come from the same X. Is q_i · k_j always equal to q_j · k_i?",
            choices: [
                "Yes, the dot product is symmetric",
                "No: W_Q and W_K differ, so QKᵀ is not symmetric",
                "Only when i and j are the same word",
            ],
            explain: "q_i · k_j = x_i W_Q W_Kᵀ x_jᵀ. The matrix W_Q W_Kᵀ is not symmetric in general, so the score matrix is not either: attention from i to j is a different question from attention from j to i.",
        },
        ChapterText {
            title: "Why divide by √d_k",
            body: &[
                "If the components of q and k are independent, with mean 0 and variance 1, their dot product is a sum of d_k independent products, each of variance 1: its variance is d_k. At d_k = 512 typical scores are ±22.",
                "Softmax of scores that far apart puts almost all the weight on one key. Its gradient, p(1 − p) for that key, then nearly vanishes, and the layer stops learning. Dividing by √d_k brings the variance back to 1 whatever d_k is.",
                "The argument rests on that premise about the components, and the lab's random heads do not meet it: W_Q and W_K are drawn with Xavier's variance 2 / (d_model + d_k), so a component of q = x W_Q has a variance near d_model · var(x) · 2 / (d_model + d_k), which shrinks as d_k grows. So the table measures your heads twice: q and k as computed, and q̃ and k̃, each component standardised to mean 0 and variance 1 over your tokens, as the argument assumes.",
            ],
            try_this: "Move d_k (or d_model) in the controls and read your heads in the table: standardised, var(q̃ · k̃) follows d_k and ÷ √d_k stays near 1; as computed, var(q · k) follows the size of the components instead. The curves show random unit-variance vectors from d_k = 4 to 512.",
            question: "At d_k = 512, without dividing by √d_k, what is the largest softmax weight of a row of 16 random keys, on average?",
            choices: [
                "About 1/16: the weights stay even",
                "About 0.3",
                "Almost 1: one key takes nearly everything",
            ],
            explain: "The scores spread as √512 ≈ 22.6, so the top score usually beats the next by several units and exp turns that into a weight near 1; the gradient p(1 − p) collapses toward 0. With the scale the row looks the same at every d_k.",
        },
        ChapterText {
            title: "Softmax and temperature",
            body: &[
                "Softmax turns a row of scores into weights that are positive and sum to 1. Dividing the scores by a temperature T before softmax changes how sharp the row is.",
                "As T → 0 the weights approach the arg-max: one key gets everything (entropy 0). As T grows they approach the uniform 1/n (entropy ln n). T = 1 is the plain formula.",
            ],
            try_this: "Drag the temperature slider and watch the marker move along the curves, and the weights heatmap flatten or sharpen on the honest 0 … 1 scale.",
            question: "What happens to a row of weights as T goes from 1 to 10?",
            choices: [
                "It gets sharper",
                "It flattens toward uniform",
                "Nothing: softmax normalises T away",
            ],
            explain: "softmax(s / T): a large T shrinks every difference between scores, so exp gives nearly equal numbers and the row tends to 1/n, its entropy to ln n.",
        },
        ChapterText {
            title: "Masks",
            body: &[
                "A mask says which keys a query may see. Padding hides the filler at the end of a short sentence; causal hides the future (a language model predicting the next token must not read it); a window keeps only neighbours, on both sides; a custom mask hides any cell.",
                "Masked scores are set to −∞ before softmax, so exp gives exactly 0. Implementations often use a large negative number instead. The two agree as long as a row keeps one visible key; when every key is masked they do not.",
            ],
            try_this: "Choose a causal or padding mask in the controls, or click cells in the custom mask editor until a whole row is hidden.",
            question: "Every key of a query is masked with −10⁹ instead of −∞. What are its weights?",
            choices: ["All zero", "Uniform: 1/n on every key", "NaN"],
            explain: "With −10⁹ everywhere, every score is equal, and softmax of equal scores is uniform: the query attends evenly to keys it must not see. With −∞, exp gives 0/0; the lab (like FlashAttention) defines such a row as zeros and says so.",
        },
        ChapterText {
            title: "Positions: absolute, RoPE, ALiBi",
            body: &[
                "Attention on its own has no idea of order: shuffle the keys and each query gets the same weights, only shuffled. The 2017 model adds a position vector P to each token's vector before anything else (X = E + P). Then a token's q and k carry its absolute place, and moving the whole text later changes every score.",
                "RoPE (rotary position embedding, used by Llama, Qwen, Mistral, DeepSeek) adds nothing to X. It turns each head's q and k after the projection: dimensions are taken in pairs, and pair p of the vector at position m is rotated by the angle m·θ_p with θ_p = base^(−2p/d_k). Rotating q by mθ and k by nθ leaves q·k depending on the difference m − n only, so the scores are relative. Lengths do not change, and v is never turned.",
                "ALiBi (BLOOM, MPT) does not touch q or k at all: it subtracts m_h·|i − j| from head h's scores, a fixed slope per head (for 8 heads 1/2, 1/4, …, 1/256). Far keys are pushed down; a steep head looks only nearby. It too depends on i − j alone.",
                "A trap: there are two ways to pair RoPE's dimensions. Meta's original Llama and GPT-J pair 2p with 2p + 1; GPT-NeoX and Hugging Face's Llama pair p with p + d_k/2. Both are relative, but the same weights give different scores. Converting a checkpoint means permuting the columns of W_Q and W_K so that each pair lands where the other layout expects it.",
            ],
            try_this: "In Positions choose RoPE and move the offset: the scores stay put. Then choose absolute and move it again.",
            question: "With RoPE, every query and key moves 100 positions later. What happens to the scores?",
            choices: [
                "They all change",
                "They stay the same, up to rounding",
                "They are multiplied by 100",
            ],
            explain: "RoPE turns q by its angle and k by its own; their dot product depends on the difference of the two angles, which the shift leaves unchanged.",
        },
        ChapterText {
            title: "Sliding windows and sink tokens",
            body: &[
                "A causal sliding window (Mistral, gpt-oss) lets query i see only keys i − r … i. The cost drops from n(n + 1)/2 cells to about n(r + 1), and a generating model keeps only r + 1 keys and values per layer instead of all of them. What lies further back is not seen by that layer at all; stacked layers pass some of it along.",
                "StreamingLLM found that models put a large share of attention on the first tokens whatever they say: the softmax must give its weight somewhere, and the first tokens, visible to every query, become the place to park it. Cut them off with a window and the weights of every row are spread anew, and quality falls. Keeping the first k tokens visible as “sink tokens” restores it.",
                "Here the window and its sinks act on the learner's own scores: the keys a window hides get weight 0, the rest share what is left, and the sink tokens keep their place at any distance.",
            ],
            try_this: "In Mask choose sliding, then set the radius to 2 and the sink tokens to 0 and 1, and watch the last query's row.",
            question: "A sentence of 20 tokens, a window of radius 3 and 1 sink token: how many keys does the last query see?",
            choices: ["3", "5", "20"],
            explain: "Keys 16, 17, 18 and 19 lie within 3 of query 19 (4 keys, itself included), and key 0 is kept as a sink: 5 keys.",
        },
        ChapterText {
            title: "Why several heads",
            body: &[
                "One head makes one weighting of the sentence per query. Several heads, each with its own W_Q, W_K, W_V of width d_model / h, can look for different things at once: the previous word, the subject, a repeated name.",
                "The heads' outputs are concatenated and mixed by W_O. Splitting d_model into h heads costs the same parameters as one wide head: the gain is in variety, not in size.",
            ],
            try_this: "Change the number of heads and compare the heads side by side; the table measures how differently they attend. Then choose the trained model (Weights, in the controls): its heads learned different jobs — one looks at the character before — and the distances grow.",
            question: "h heads of d_model / h each, against one head of d_model: how many parameters do W_Q, W_K, W_V, W_O have?",
            choices: ["h times more", "The same", "h times fewer"],
            explain: "W_Q is d_model × (h · d_model / h) = d_model × d_model either way, and so are W_K, W_V and W_O: 4 d_model² in both cases. The table computes it from your shape.",
        },
        ChapterText {
            title: "Multi-query and grouped-query attention",
            body: &[
                "When a model generates text it keeps the keys and values of every earlier token (the KV cache), for every layer. With many heads that cache, not the weights, is what fills the memory.",
                "Grouped-query attention lets several query heads share one K/V head; multi-query attention shares a single K/V head among all. Queries stay per head, so heads still ask different questions.",
            ],
            try_this: "In the controls, tick “share K/V” and lower the K/V heads; watch the cache column and the K, V stages.",
            question: "From 8 K/V heads to 1 (multi-query), the KV cache per token becomes…",
            choices: ["the same", "half as large", "one eighth as large"],
            explain: "The cache holds d_k + d_v numbers per K/V head and token: going from 8 K/V heads to 1 divides it by 8, while W_Q and W_O are unchanged.",
        },
        ChapterText {
            title: "Cross-attention",
            body: &[
                "In self-attention queries, keys and values come from the same sentence. In cross-attention the queries come from one sequence and the keys and values from another: a translation's decoder asks questions of the encoded source sentence.",
                "The weight matrix is then n × m: one row per query token, one column per source token, and each row still sums to 1 over the source.",
            ],
            try_this: "Give a second sentence (the button below adds one); the table shows which source token each query weighs most.",
            question: "Queries from a 5-token sentence, keys and values from an 8-token one. The weight matrix is…",
            choices: ["5 × 5", "5 × 8", "8 × 8"],
            explain: "One row per query (5), one column per key (8). The output has one row per query: each query gets a mixture of the source's values.",
        },
        ChapterText {
            title: "LayerNorm, Pre-LN and Post-LN",
            body: &[
                "LayerNorm rescales each token's vector to mean 0 and standard deviation 1 (then applies a learned γ and β). In a residual block it can sit after the addition, LN(x + F(x)) (Post-LN, the original Transformer), or before the sublayer, x + F(LN(x)) (Pre-LN).",
                "Post-LN holds the residual stream at a fixed size, but every gradient passes through a LayerNorm per block, and deep stacks need a learning-rate warm-up. Pre-LN leaves an untouched identity path from the output to the input, which trains more stably; its stream grows with depth.",
            ],
            try_this: "Choose Pre-LN in the controls to see LN(X) among the stages; the first chart stacks random blocks under each placement, the second backpropagates a loss through the same blocks and measures the gradient each block receives.",
            question: "After 24 random blocks, whose residual stream has grown?",
            choices: ["Pre-LN's", "Post-LN's", "Neither: LayerNorm fixes both"],
            explain: "Post-LN normalises after every addition, so the stream's size is 1 after each block. Pre-LN normalises only what enters F; the sum x + F(LN(x)) keeps adding, so the stream grows block after block.",
        },
        ChapterText {
            title: "Numerical stability and precision",
            body: &[
                "exp overflows: in f32 above about 88.7, in f16 above ln 65504 ≈ 11.09. A softmax that exponentiates the raw scores gives ∞ / ∞ = NaN as soon as one score passes that point.",
                "exp also underflows: below about −17.3 in f16 (−104 in f32) it rounds to 0. When every score of a row is that low, the sum is 0 and the weights are 0 / 0 = NaN too. Raising every score of a row of negative scores only makes them more negative, so such a row underflows, never overflows.",
                "Subtracting the row's maximum first changes nothing mathematically (the same number taken from every score cancels in the ratio) but fixes both: the largest exponent is exactly 0, so nothing overflows, and its exp is 1, so the sum never falls to 0. And f16 keeps only 11 significant bits, so QKᵀ in f16 carries visible error: attention's scores are kept in f32 under mixed precision.",
            ],
            try_this: "Raise the factor k that multiplies your scores and find where the naive f16 softmax breaks, and how: a row with a positive score overflows, a row of negative scores underflows. Then add c to every score: the stable softmax does not move, the naive one breaks elsewhere.",
            question: "In f16, without subtracting the maximum, softmax breaks once a score passes about…",
            choices: ["11", "88", "65 504"],
            explain: "The largest f16 is 65 504, and e^11.09 ≈ 65 504: one score above 11.09 makes exp infinite. f32 lasts until 88.7. The experiment finds the exact k for your row, and says whether it breaks by overflow or, when every score is negative, by underflow.",
        },
        ChapterText {
            title: "Taming the scores: soft-caps, QK-norm, sink logits",
            body: &[
                "Large scores make the softmax pick one key and starve the gradients of the others; in training they can grow until a run diverges. Three remedies are used by today's models.",
                "A soft-cap (Gemma 2) replaces the score z by c·tanh(z/c) before the temperature: scores far below c pass nearly unchanged, large ones bend towards ±c and never reach it, so no score can exceed c.",
                "QK-norm (Gemma 3, OLMo 2) divides each head's q and k rows by their root mean square before the dot product. Each then has length √d_k, so |q·k|/√d_k ≤ √d_k whatever the weights do; a learned gain usually follows, which the lab leaves out.",
                "A sink logit (gpt-oss) is one more column in each row's softmax, a learned number per head that is dropped afterwards. The visible keys then share less than 1, and a head with nothing useful to read can give its attention to nothing instead of to the first token.",
            ],
            try_this: "In Score shaping turn on QK-norm, then a soft-cap of 1, then a sink logit of 5 for one head, and compare the weights.",
            question: "After QK-norm with d_k = 16, how large can |q·k|/√d_k be?",
            choices: ["1", "4", "16"],
            explain: "Both vectors have length √16 = 4, so |q·k| ≤ 16 and |q·k|/√16 ≤ 4 = √d_k.",
        },
        ChapterText {
            title: "O(n²)",
            body: &[
                "Every query is compared with every key: n² scores per head, each costing d_k multiply-adds, and n² weights to store. Doubling the sentence quadruples the work and the memory of the score matrix.",
                "The reward is the path length: any token reaches any other in one step, where a recurrent network needs up to n − 1 steps, through which information and gradients fade.",
            ],
            try_this: "Press “Measure” to time one head at n from 64 to 4096 in this page; the fitted slope on log–log axes is the exponent.",
            question: "Doubling n multiplies standard attention's time by about…",
            choices: ["2", "4", "8"],
            explain: "(2n)² = 4n². The measured slope comes out near 2 once n is large enough for the n² part to dominate; small n shows fixed costs. FlashAttention does the same n² work: it saves memory, not arithmetic.",
        },
        ChapterText {
            title: "FlashAttention",
            body: &[
                "FlashAttention computes exactly the same result without ever holding the n × n matrix. It walks over tiles of queries and keys, keeping for each query row a running maximum m, a running sum l and an output accumulator.",
                "When a new tile raises the maximum, what was summed so far is rescaled by exp(m_old − m_new): this online softmax is what lets it finish each row without seeing it whole. Memory for scores falls from n² to one tile.",
            ],
            try_this: "Step through the tiles in the player below; with a causal mask, count the tiles it skips.",
            question: "FlashAttention's output compared with standard attention's is…",
            choices: [
                "an approximation",
                "the same, up to floating-point rounding",
                "more accurate",
            ],
            explain: "It is an exact algorithm: the same sums in a different order. The lab computes both and shows the largest difference, around 10⁻⁷.",
        },
        ChapterText {
            title: "The KV cache",
            body: &[
                "A decoder writes one token at a time, and each new token needs a forward pass. But under the causal mask no query ever reads a key after it, so adding a token changes nothing in any earlier row: their q, k, v, weights and outputs come out exactly as before.",
                "So a generation step computes only the new row. In every layer it projects the new token into q, k and v, appends k and v to what was kept from earlier steps (the KV cache), and scores its one q against every cached key: a matrix-vector product instead of a matrix product. Q is never cached; nothing reads an old query again.",
                "The cost moves from arithmetic to memory. Per token the cache holds 2 · layers · K/V heads · d_head numbers (K and V); sharing K/V heads (GQA, MQA) or compressing them (MLA) is what makes long contexts fit. Without the cache, every step would run the whole text again, and the steps would grow slower as the text grows.",
            ],
            try_this: "Switch the mask between none and causal and watch the largest weight on a later key; then choose a trained model and generate below, with the cache and without.",
            question: "A decoder has written 100 tokens and computes the 101st. With a KV cache, which rows of Q does each layer compute?",
            choices: [
                "all 101, as in any forward pass",
                "only the new one: the 100 earlier rows would come out the same",
                "only the rows the new token attends to most",
            ],
            explain: "Under the causal mask the earlier rows never see the new token, so recomputing them gives the same numbers. The experiment recomputes the last row from its q and the cached K and V alone and compares it with the full computation; the generator below checks every step against a full recompute.",
        },
        ChapterText {
            title: "Streaming and attention sinks",
            body: &[
                "A model reads at most its context. To keep going, a streaming server rolls its cache: it keeps the last w tokens and drops older ones, so memory stays fixed however long the text. Positions are counted inside the cache, so a RoPE model never meets a position it was not trained on.",
                "Xiao et al. (StreamingLLM, 2023) found that large models break as soon as the first tokens leave the cache, and that keeping just four of them (sink tokens) repairs it. Softmax must put its weight somewhere; many heads park what they do not need on the first token, which every query can see. Evict it, and that weight lands on tokens that mean something.",
                "Whether a model does this is a fact about that model, to be measured, not assumed. The lab's Llama-layout model reads a text four times its context here, with and without sinks, beside a sliding-window recompute.",
            ],
            try_this: "Choose the Llama layout, read the text below with 4 sink tokens and with 0, and compare the two curves and the heads' shares on the first character.",
            question: "The lab's small Llama model (3 layers, trained on 256-character windows) reads 956 characters through a cache of its last 64. What does dropping the sink tokens do to its loss?",
            choices: [
                "it explodes once the first characters leave the cache, as in large models",
                "almost nothing: over a long text, this small model's heads give the first character only a few per cent of their attention",
                "it falls, since a smaller cache is always better",
            ],
            explain: "Measured here: the two curves lie on top of each other (the means differ by a few thousandths of a nat) and over the passage's first 256 characters no head gives the first character more than a few per cent of its weight. Sinks form in large models trained on long texts; this one never needed one.",
        },
        ChapterText {
            title: "Why does a head attend? Circuits",
            body: &[
                "A head's pattern is what it does; why it does it is in the residual stream. Everything a later head reads was written there: by the token embedding, the positions, and every head and MLP before it. With the norm's scale frozen at its actual value, a score is an exact sum of terms, one per pair of writers: what the query read from one, times what the key read from another.",
                "Elhage et al. (2021) and Olsson et al. (2022) described the induction circuit. A layer-1 head copies each character's predecessor into its position (a previous-token head). A later head's key reads that copy, so a query matches the key whose predecessor is the query's own character, and the model predicts what followed last time. Heads that work together like this compose; here, through the key (K-composition).",
                "Two tools test such a story on real numbers: take a score apart and see which writers it read, and knock a head out (its output replaced by zero, or by its mean) and see what breaks.",
            ],
            try_this: "With the GPT-2 model, type a random string twice (xq7kb@ xq7kb). Click the induction head's weight on the target in the weights below and read “Why here?”; then knock the previous-token head out under “Every head at a glance”.",
            question: "Knock out the layer-1 previous-token head. What happens to the induction head's pattern on a string typed twice?",
            choices: [
                "nothing: each head computes its own pattern from the sentence",
                "it collapses: the induction head's key read what the previous-token head wrote",
                "it gets sharper: one head fewer competes for the keys",
            ],
            explain: "The key loses what it matched on. On xq7kb@ xq7kb the GPT-2 model's L2·H4 puts 0.654 of its weight on “@”; with L1·H2 knocked out, 0.004, and “@” is no longer predicted. The experiment measures the same on your text, and says where this model's circuit differs from the textbook's.",
        },
        ChapterText {
            title: "Sparse and linear attention",
            body: &[
                "Sparse attention computes only some cells: a strided pattern lets each query see its last √n neighbours and every √n-th token before them; a fixed pattern sees its own block and a summary token of each earlier block. About n√n cells instead of n²/2.",
                "Linear attention replaces exp(q · k) by φ(q) · φ(k) with a positive feature map such as φ = elu + 1. Then (φ(K)ᵀ V) can be summed once, and the cost is linear in n; the weights are no longer a softmax, so the output differs. Multi-query attention (see that chapter) saves memory, not computation.",
            ],
            try_this: "Make the sentence longer and watch how the sparse patterns' cell counts grow against n√n and n².",
            question: "A strided pattern with stride √n computes about how many cells?",
            choices: ["n", "n√n", "n²"],
            explain: "Each of the n queries sees about √n neighbours and about √n strided keys: about 2n√n cells, against n(n + 1)/2 for full causal attention.",
        },
        ChapterText {
            title: "Linear attention grown up: the delta rule",
            body: &[
                "Linear attention keeps a running state instead of a softmax: each token adds k vᵀ to a d_k × d_v matrix S, and a query reads Sᵀq. A token costs the same however long the text, and the output is still A·V for a hidden matrix A: lower-triangular, but not a softmax, so its rows need not sum to 1 and its entries can be negative.",
                "The price is memory. S holds d_k × d_v numbers however many tokens it has seen. Plain linear attention only ever adds, so once keys overlap, every value written bleeds into every answer.",
                "The delta rule (DeltaNet) writes like an editor: before storing v at key k it takes away what S already says for k, by a step β: S ← S + k β (v − Sᵀk). With β = 1 and a key of length 1, the state answers k with exactly v right after. Gated DeltaNet first multiplies S by a decay α < 1, so old writes fade and leave room. Qwen3-Next, Qwen3.5 and Kimi Linear stack such layers, three for each softmax layer.",
                "The same numbers come token by token (generation: one update of S per token) or in chunks (within a chunk by matrix products, between chunks through S: the WY form a GPU runs). The two must agree.",
            ],
            try_this: "Change d_k in the controls: the state grows or shrinks, and the number of pairs it holds before recall breaks moves with it. Then open the full lab's Linear attention section and drag the slider over the tokens to watch S fill, fade and be overwritten.",
            question: "Sixty-four key–value pairs are written one after another into a 16 × 16 state with the delta rule (β = 1). Asked for the last pair's key, what does the state give back?",
            choices: [
                "a blur of all 64 values, as plain linear attention would",
                "exactly the last value written",
                "nothing: the state is full",
            ],
            explain: "The last write corrects the state's answer for its key to exactly v. Older pairs are disturbed by later writes whose keys overlap theirs, the more so once the pairs outnumber the state's 16 key directions; plain linear attention blurs even the newest.",
        },
        ChapterText {
            title: "Hybrids and gates",
            body: &[
                "Why keep any softmax layer, when linear attention costs the same per token however long the text? Because a state of fixed size forgets: the delta-rule chapter showed recall breaking once the pairs outnumber the state's key directions. A softmax layer's cache forgets nothing; it only grows.",
                "So 2025's open models mix the two kinds. Qwen3-Next, Qwen3.5 and Kimi Linear repeat a group of three linear-attention layers and one full-attention layer: the three carry a running summary at a fixed cost, and the one in four can still look up any earlier token exactly. Their memory has a fixed part, the states, and a part that grows a quarter as fast as an all-softmax model's.",
                "Qwen3-Next's full-attention heads also pass each output through a gate σ(x·W_g) before W_O. A softmax row must sum to 1, so a head with nothing worth reading still parks its weight somewhere, usually on the first token: an attention sink, often marked by a huge activation. With a gate a head can close instead. Qiu et al. (2025) report that the sinks disappear and the huge activations shrink.",
                "The lab trains a pair to see it for itself: the Llama model, and its twin with the gate on every head. Below, both read the Streaming section's sample text through the same rolling cache, and the three signs of a sink stand side by side, with what was tried.",
            ],
            try_this: "Change d_k and the K/V heads in the controls and watch where the 3 : 1 stack passes below the all-softmax one. Then press “Compare the twins” and read the three signs of a sink for each model.",
            question: "A 3 : 1 hybrid and an all-softmax model with the same heads each read 65 536 tokens. About how much memory does the hybrid hold, compared with the all-softmax model?",
            choices: [
                "the same: every layer still attends to every token",
                "about a quarter, plus its fixed states",
                "a fixed amount: nothing grows with the text",
            ],
            explain: "Only one layer in four caches keys and values, so its growing part is a quarter of the all-softmax model's; the three states add a fixed amount that a long text makes small. Unlike an all-linear model it still grows: that is the price of exact recall.",
        },
        ChapterText {
            title: "Exercises",
            body: &[
                "The course's articles end with three exercises. Answer each one first; then its worked answer opens step by step, with the chapter whose experiment shows it on your own sentence.",
            ],
            try_this: "Write your answer to each exercise below, compare it with the worked one, then open the chapter it points to and check the number.",
            question: "",
            choices: ["", "", ""],
            explain: "",
        },
    ],
    exercises: [
        ExerciseText {
            title: "1. The complexity of self-attention",
            asks: &[
                "What are the time and the memory complexity of self-attention?",
                "How does the length n of the sequence change them?",
                "How does self-attention compare with a recurrent network?",
            ],
            steps: &[
                "Time: QKᵀ is n × d_k times d_k × n, so n² d_k multiply-adds per head; weights · V another n² d_v; the projections n d_model² each. Over h heads with h d_k = d_model: O(n² d_model + n d_model²).",
                "Memory: the n × n weights per head, O(h n²), unless FlashAttention avoids storing them (O(n) extra).",
                "Effect of n: doubling n quadruples the attention part — the Complexity chapter measures the slope in this page.",
                "Against an RNN: an RNN costs O(n d²) but takes n sequential steps, and the path between the first and last token is n − 1 steps; attention's is 1 and its n² work runs in parallel.",
            ],
        },
        ExerciseText {
            title: "2. Multi-head attention",
            asks: &[
                "Why do several heads work better than one?",
                "What does the number of heads change?",
                "How can the parameters be shared out among the heads?",
            ],
            steps: &[
                "Why better than one head: each head has its own projections and can attend to something different; one head must average everything into one weighting. The Why several heads chapter measures how different your heads' weights are.",
                "How many heads: more heads cost no parameters (4 d_model² either way) but make each d_k = d_model / h smaller; too small a d_k limits what one head can match. Common choices keep d_k at 64 or 128.",
                "Allocating parameters: grouped-query attention shares K/V heads to shrink the KV cache while keeping the query heads — the GQA chapter's table.",
            ],
        },
        ExerciseText {
            title: "3. Pre-LN against Post-LN",
            asks: &[
                "What does each placement of LayerNorm gain and lose?",
                "What does LayerNorm do for the stability of training?",
                "How does normalisation change the way gradients flow?",
            ],
            steps: &[
                "Post-LN, LN(x + F(x)): the stream stays normalised, but the gradient to early layers passes through every LayerNorm; deep models need warm-up and train less stably.",
                "Pre-LN, x + F(LN(x)): an identity path runs from output to input, so gradients reach early layers undamped and training is stable without warm-up; the stream grows with depth, so a final LayerNorm is added.",
                "The LayerNorm chapter stacks 24 random blocks under each, draws the stream's size and backpropagates a loss through them: under Pre-LN every block receives at least the output's gradient; under Post-LN it passes a LayerNorm per block. The lab's LayerNorm control switches the block between them.",
            ],
        },
    ],
    x: ExperimentTexts {
        cross_source: "A tired cat sat down on the warm mat.",
        token: "token",
        key: "key",
        head: "head",
        weight: "weight",
        repeated: |t, a, b, de, dx| {
            format!(
                "“{t}” stands at positions {a} and {b}: its embeddings differ by |ΔE| = {de:.3}, its rows of X by |ΔX| = {dx:.3}."
            )
        },
        no_repeat: "No token repeats in this sentence: use a word twice to see E stay the same while X changes.",
        qkv_intro: |t, h, d| {
            format!("The query of “{t}” (head {h}, d_k = {d}) against every key, best match first:")
        },
        dot: "q · k",
        masked: "masked",
        variance_title: "Variance of q · k, random unit-variance vectors",
        variance_y: "variance",
        raw: "q · k",
        scaled: "q · k / √d_k",
        theory: "d_k (theory)",
        saturation_title: "Softmax of 16 random scores: largest weight and its gradient",
        saturation_y: "mean over 200 rows",
        largest_raw: "largest weight, unscaled",
        largest_scaled: "largest weight, ÷ √d_k",
        gradient_raw: "p(1 − p), unscaled",
        gradient_scaled: "p(1 − p), ÷ √d_k",
        heads_caption: "Your heads, over every query–key pair: q and k as computed, and q̃ and k̃ standardised (each component of mean 0 and variance 1 over your tokens)",
        var_q: "var of a q component",
        var_k: "var of a k component",
        var_raw: "var(q · k)",
        var_scaled: "var(q · k / √d_k)",
        var_standard: "var(q̃ · k̃)",
        var_standard_scaled: "var(q̃ · k̃ / √d_k)",
        heads_result: |v| {
            let HeadVariances {
                head: h,
                d_model,
                d_k,
                xavier,
                q,
                k,
                raw,
                standard,
                scaled,
                pairs,
            } = *v;
            format!(
                "Head {h}: a component of q has variance {q:.3} and one of k {k:.3}, not 1, because W is drawn with variance 2 / (d_model + d_k) = 2 / ({d_model} + {d_k}) = {xavier:.4}; so var(q · k) = {raw:.3} tells more about those sizes than about d_k = {d_k}. Standardised, as the argument assumes: var(q̃ · k̃) = {standard:.2}, near d_k = {d_k}, and var(q̃ · k̃ / √d_k) = {scaled:.3}, near 1. Measured on {pairs} pairs of your tokens, not on thousands of samples as the curves are, so expect these near the theory, not on it."
            )
        },
        one_token: "With one token no component varies: standardising needs at least two.",
        hist_raw: "q · k of the selected head",
        hist_scaled: "q · k / √d_k, same axis",
        row_result: |v| {
            format!(
                "Your selected query, softmax without the scale: largest weight {:.3}, entropy {:.3}, gradient p(1 − p) {:.3}; with ÷ √d_k: {:.3}, {:.3}, {:.3}.",
                v[0], v[1], v[2], v[3], v[4], v[5]
            )
        },
        sweep_title: "The selected query's weights as T sweeps from 0.05 to 10",
        temperature: "temperature T",
        sweep_y: "0 … 1",
        largest: "largest weight",
        entropy_share: "entropy ÷ ln n",
        sweep_result: |t, p, h, u, k| {
            format!(
                "At T = {t}: largest weight {p:.3}, entropy {h:.3} nats of at most ln n = {u:.3}. As T → 0 everything goes to “{k}”; as T grows the row tends to uniform."
            )
        },
        with_infinity: "masked with −∞",
        with_large_negative: "masked with −10⁹",
        all_masked: |a, b| {
            format!("The same row with every key masked — with −∞: {a}; with −10⁹: {b}.")
        },
        fully_masked: |rows| {
            format!(
                "With your mask, these queries see no key at all: {rows}. Their weights and outputs are zero."
            )
        },
        no_fully_masked: "With your mask, every query sees at least one key.",
        distance_caption: "How differently two heads attend: the mean over queries of ½ Σ |a − b| between their weight rows (0 = identical, 1 = disjoint)",
        mean_distance: |d| format!("Mean over pairs of heads: {d:.3}."),
        head_parameters: |h, d, split, single, current| {
            format!(
                "Projections of {h} heads of {d}/{h}: {split} parameters; one head of {d}: {single}; your shape: {current}."
            )
        },
        kv_heads: "K/V heads",
        kind: "kind",
        kinds: ["multi-head", "grouped-query", "multi-query"],
        kv_parameters: "W_K, W_V parameters",
        parameters: "all projections",
        cache_per_token: "KV cache per token and layer (f16)",
        cache_4096: "for 4096 tokens",
        current: "yours",
        not_cross: "This is self-attention: keys and values come from the same sentence. Add a second sentence to attend across.",
        add_source: "Add a second sentence",
        cross_result: |n, m| {
            format!("{n} queries × {m} keys: each query's strongest source token:")
        },
        source_token: "source token",
        mean: "mean",
        std: "std",
        after_mean: "mean after LN",
        after_std: "std after LN",
        stream_title: "Size (RMS) of the residual stream through random blocks",
        blocks: "blocks",
        stream_y: "RMS",
        pre_ln: "Pre-LN: x + F(LN(x))",
        post_ln: "Post-LN: LN(x + F(x))",
        stream_result: |pre, post, n| {
            format!(
                "After {n} blocks the Pre-LN stream has RMS {pre:.2}; the Post-LN stream {post:.2}."
            )
        },
        gradient_title: "Gradient ∂L/∂x at each block's input (÷ the output's), by backpropagation",
        gradient_y: "‖∂L/∂x‖ ÷ output's",
        gradient_result: |n, pre, pre_min, post, post_min, post_max| {
            format!(
                "A loss that reads the last block's output, backpropagated through the same {n} blocks at initialisation: under Pre-LN the gradient reaching the input is {pre:.2} times the output's, and no block receives less than {pre_min:.2} times it, because the identity path hands every block the output's gradient and each block adds its own. Under Post-LN it reaches the input at {post:.2} times (between {post_min:.2} and {post_max:.2} on the way), each block's gradient having passed through the LayerNorms above it, each dividing by the spread of its input."
            )
        },
        factor: "multiply the scores by k",
        shift: "then add c to every score",
        naive_f32: "naive, f32",
        naive_f16: "naive, f16",
        stable_f16: "max subtracted, f16",
        largest_exponent: |top| format!("The largest k · s + c of this row is {top:.2}."),
        breaks_overflow: |p, k, e| {
            format!(
                "In {p} the naive softmax breaks at k = {k} by overflow: there the largest k · s + c reaches {e:.2}, past ln of the largest {p}, so its exp is ∞ and ∞ / ∞ = NaN."
            )
        },
        breaks_sum: |p, k, e| {
            format!(
                "In {p} the naive softmax breaks at k = {k} by overflow of the sum: there the largest k · s + c is {e:.2}, so each exp still fits in {p}, but several scores lie near the largest and their exps add up past the largest {p}; every weight becomes 0."
            )
        },
        breaks_underflow: |p, k, e| {
            format!(
                "In {p} the naive softmax breaks at k = {k} by underflow: there the largest k · s + c is {e:.2}, every exp rounds to 0, and the weights are 0 / 0 = NaN."
            )
        },
        never_breaks: |p| {
            format!("In {p} the naive softmax does not break for any k below 10 000.")
        },
        only_underflow: |q, token, score| {
            format!(
                "Every score of this row is negative, so here exp can only underflow, never overflow. To see the overflow the chapter describes, add c > 0, or choose query {q} (“{token}”), whose largest score, {score:.2}, is this head's largest."
            )
        },
        choose_query: |q| format!("Choose query {q}"),
        states: ["fine", "overflow", "underflow"],
        now: |k, c, f32, f16, stable| {
            format!(
                "At k = {k} and c = {c}: naive f32 {f32}; naive f16 {f16}; max subtracted {stable}."
            )
        },
        f16_error: |abs, rel| {
            format!(
                "QKᵀ of this head with f16 inputs, products and sums: largest error {abs:.2e} ({:.2} % of the value) against f32.",
                rel * 100.0
            )
        },
        counts: |n, cells, std, tile, rnn| {
            format!(
                "At n = {n}: {cells} scores over the heads; the score matrix of one head holds {std} bytes in f32, one FlashAttention tile {tile}. From the first token to the last: 1 step for attention, {rnn} for a recurrent network."
            )
        },
        measure: "Measure",
        measuring: |n| format!("Measuring at n = {n}…"),
        time_title: "Time of one head (d_k = 32), measured in this page",
        time_y: "milliseconds",
        standard: "standard",
        flash: "flash",
        slope: |s, f| {
            format!(
                "Fitted slope on log–log axes (n ≥ 256): standard {s:.2}, flash {f:.2} (2 means O(n²))."
            )
        },
        measure_help: "At each size the page times batches of runs (its clock is too coarse for one run at a small n) and keeps the fastest; it pauses for about a second at 4096.",
        flash_on_cpu: |n, ratio| {
            format!(
                "At n = {n} FlashAttention took {ratio:.2} times the standard pass's time. That is expected here: on a CPU both do the same n² multiply-adds, and the tiles add their rescaling. What FlashAttention saves is memory traffic on a GPU: it never writes the n × n matrix to the GPU's large, slow memory (HBM), keeping each tile in fast on-chip memory (SRAM). The FlashAttention chapter counts those bytes."
            )
        },
        flash_counts: |tiles, skipped, std, tile, diff| {
            format!(
                "{tiles} tiles, {skipped} skipped by the mask; standard attention holds {std} scores per head, FlashAttention one tile of {tile}. Largest difference between their outputs: {diff:.1e}."
            )
        },
        patterns: ["strided", "fixed"],
        sparse_counts: |p, stride, cells, nsn, causal| {
            format!(
                "{p} (stride {stride}): {cells} cells, against n√n = {nsn:.0} and {causal} for full causal attention."
            )
        },
        linear: |max, mean, lin, soft| {
            format!(
                "Linear attention (φ = elu + 1) on the selected head: largest difference from softmax attention {max:.3}, mean {mean:.3}; cost {lin} multiply-adds against {soft}."
            )
        },
        go_to: "Go to this chapter",
    },
    circuits: CircuitsLessonTexts {
        found: |i, c, j, t, tc| {
            format!(
                "Your text: “{c}” at position {i} appeared before, at position {j}; an induction head would look at position {t}, “{tc}”, the character that followed it."
            )
        },
        heads: |prev, share, ind, w| {
            format!(
                "{prev} looks most at the previous character ({share} of its weight on average); {ind} gives that target the most weight: {w}."
            )
        },
        writers: |score, list| {
            format!("Its score, {score}, taken apart by what its key read: {list}.")
        },
        textbook: |part| {
            format!(
                "As in the textbook circuit, the key reads most from the previous-token head ({part})."
            )
        },
        not_textbook: |top, part, prev, own| {
            format!(
                "Not quite the textbook circuit: the key reads most from {top} ({part}); {prev}, the previous-token head, writes {own} of it directly. What a head writes can reach a later key through an MLP."
            )
        },
        composition: |prev, ind, k, base, strongest, sk| {
            format!(
                "From the weights alone, {prev} → {ind} K-composition is {k}, against {base} for random matrices of these shapes; the strongest earlier head into {ind}'s keys is {strongest} ({sk})."
            )
        },
        knocked: |k: &Knocked| {
            let Knocked {
                previous: prev,
                induction: ind,
                before,
                after,
                top,
                top_after,
                copied: c,
                p,
                p_after,
            } = *k;
            format!(
                "Knock {prev} out: {ind}'s weight on the target goes {before} → {after}; the likeliest next character {top} → {top_after}; “{c}” itself {p} → {p_after}."
            )
        },
        knocked_little: |before, after| {
            format!(
                "Knocking it out barely moves the induction head ({before} → {after}): on this text, this model's induction head does not depend on that head."
            )
        },
        needs_model: "This chapter needs a trained model: random weights have one layer, and no head has learned anything to explain.",
        use_gpt2: "Use the GPT-2 model with xq7kb@ xq7kb",
        take_apart: "Take this score apart in “Why here?”",
        no_repeat: "No character of your text appears twice with a character after its first occurrence. Type a string twice, like xq7kb@ xq7kb.",
        cannot_run: "The model cannot run on this text with these settings; the message above the lab says why.",
    },
    cache: CacheLessonTexts {
        future: |w, causal| {
            if causal {
                format!(
                    "Under this causal mask the largest weight any query gives a later key is {w}: adding a token cannot change an earlier row, so the earlier rows can be kept."
                )
            } else {
                format!(
                    "Without the causal mask a query gives a later key up to {w:.3} of its weight: adding a token would change earlier rows, and a cache of them would go stale. Encoders such as BERT see both ways and are not run this way."
                )
            }
        },
        last_row: |query, head, delta| {
            format!(
                "The last row (query {query}) of head {head}, recomputed from its q alone against the cached K and V, differs from the full computation by at most {delta:.1e}."
            )
        },
        last_row_shaped: "ALiBi, a soft-cap or sink logits shape these scores; the recomputation of the last row is shown without them (the generator below checks every step of a real model).",
        bytes: |bytes, kv, d_k, d_v| {
            format!(
                "Each token adds {bytes} to the cache in each layer here: {kv} K/V heads × ({d_k} + {d_v}) numbers × 4 bytes."
            )
        },
        cost_title: "Work for one new token in one layer (multiply-adds, these shapes)",
        cost_columns: ["tokens so far", "with the cache", "without", "times more"],
        try_model: "Generate with a trained model: every step's new row against its growing cache, timed with and without it.",
        try_llama: "Use the Llama-layout model",
        share: |even, most, head, n| {
            format!(
                "Mean weight each head gives the first key, over every query after the first, on your sentence of {n} tokens: head {head} gives it the most, {:.1}%; spreading evenly over the keys each query sees would give it {:.1}%. On a short sentence the first key can take far more for plain reasons: the first queries see only a few keys, and the first word may matter. That is not yet a sink: a sink keeps a large share over a long text whatever the query, and the streaming view below measures exactly that, over the first 256 characters of a long passage, where the Llama model's shares are a few per cent.",
                most * 100.0,
                even * 100.0
            )
        },
        share_columns: ["head", "weight on the first key"],
        kept_title: |w, k| {
            format!("Positions a cache keeps: all of them, or the last {w} and the first {k}")
        },
        kept_columns: ["text length", "full cache", "rolling cache"],
    },
    modern: ModernTexts {
        why_not: [
            "The trained model keeps the absolute positions it learned: choose random weights to compare the kinds.",
            "Your own X has no sentence to place: type a sentence to compare the kinds.",
            "This compares at most 512 tokens: shorten the input.",
        ],
        kinds: ["absolute", "none", "RoPE", "ALiBi"],
        kind: "positions",
        shift_change: |shift| format!("scores' largest change, every position + {shift}"),
        top_key: |query| format!("query {query}'s most attended key"),
        odd_d_k: |d_k| format!("RoPE needs an even d_k (here {d_k}): it is left out."),
        pairings: |differ, permuted, order| {
            format!(
                "RoPE with the same W_Q and W_K: the half and interleaved pairings give scores that differ by up to {differ}. Reorder the columns of q and k (as of W_Q and W_K) to {order} and they agree to {permuted}."
            )
        },
        window_cells: |radius, sinks, causal, window, with_sinks| {
            format!(
                "Causal: {causal} cells. A window of radius {radius}: {window}. With {sinks} sink token(s): {with_sinks}."
            )
        },
        window_mass: |query, hidden, sinks, kept| {
            format!(
                "Under the full causal mask, query {query} gave {hidden} of its weight to the keys the window hides, {sinks} to the sink tokens and {kept} to the other keys inside the window."
            )
        },
        hidden_per_query: |list| format!("Keys hidden from each query, from query 0: {list}."),
        causal: "causal",
        window: "window",
        with_sinks: "window + sinks",
        hidden: "hidden",
        sink: "sink",
        not_cross: "A sliding window follows the order of one sentence: it does not apply to cross-attention.",
        cap: "soft-cap c",
        no_cap: "none",
        largest_score: "largest |score|",
        top_weight: "top weight",
        entropy: "entropy (nats)",
        caps_intro: |query, head| format!("Query {query} of head {head}, under a few caps:"),
        qk_norm_intro: |d_k, bound, growth| {
            format!(
                "Every head's largest |q·k|/√d_k, with d_k = {d_k} and so a bound of √d_k = {bound} after QK-norm; then with q and k × {growth}, as weights grow in training:"
            )
        },
        raw: "without QK-norm",
        normed: "with QK-norm",
        raw_grown: |g| format!("without, q and k × {g}"),
        normed_grown: |g| format!("with, q and k × {g}"),
        sinks_intro: |max| {
            format!("The same row with a sink logit around its largest score ({max}):")
        },
        sink_logit: "sink logit",
        no_sink: "none",
        kept: "weight left to the keys",
    },
    delta: DeltaLessonTexts {
        chart: [
            "Asking a state for what was written into it",
            "key–value pairs written",
            "mean recall error ‖Sᵀk − v‖ / ‖v‖",
            "plain linear attention (S ← S + k vᵀ)",
            "delta rule (β = 1)",
            "gated delta rule (α = 0.9)",
        ],
        at_capacity: |d_k, plain, delta, gated, newest| {
            format!(
                "Random keys of length 1 in d_k = {d_k} dimensions: after {d_k} pairs (as many as the state has key directions) the mean recall error is {plain} for plain linear attention, {delta} for the delta rule and {gated} with the decay; the newest pair comes back from the delta rule with an error of {newest}."
            )
        },
        past_capacity: |pairs, recent, delta, gated, alpha| {
            format!(
                "After {pairs} pairs the state is over-full: the last {recent} pairs written come back with an error of {delta} without the decay and {gated} with α = {alpha}, which lets the old pairs go."
            )
        },
        chunks: |head, items| {
            format!(
                "Your sentence, head {head}, as the gated delta rule: the chunked form against token by token, largest difference {items}."
            )
        },
        linear_layer: |layer| {
            match layer {
            Some(layer) => format!(
                "Layer {layer} of this hybrid is linear attention: this chapter's experiment reads softmax weights, so choose a full-attention layer (or another model) to run it."
            ),
            None => "The heads compute linear attention (the Attention control): this chapter's experiment reads softmax weights, so set Attention back to softmax to run it.".to_string(),
        }
        },
    },
    hybrids: HybridsLessonTexts {
        chart: [
            "What four layers hold while they read",
            "tokens read",
            "bytes held (f32)",
            "all softmax (0 : 4)",
            "half and half (2 : 2)",
            "three to one (3 : 1)",
            "all linear (4 : 0)",
        ],
        crossover: |crossover, hybrid, softmax, longest, heads, kv_heads, d_k, d_v| {
            format!(
                "For four layers of your heads ({heads} query heads, {kv_heads} K/V heads, d_k = {d_k}, d_v = {d_v}), the 3 : 1 stack holds less than the all-softmax one from {crossover} tokens on (the marked line); at {longest} tokens it holds {hybrid} bytes against {softmax}."
            )
        },
    },
};
