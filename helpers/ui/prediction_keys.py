"""The answer keys of the predict-then-run questions, kept out of the notebooks.

A prediction cell shows only its question and choices, ``H.predict_choice("2.5-q1", question,
options)``; the key and the explanation live here, under the question's id, so a class that
reads the cell on a projector cannot read the answer before it votes. The reveal cell after the
question, ``with H.reveal("2.5-q1") as r: ...``, checks what it computes against the key out of
sight (:mod:`helpers.ui.reveal`), and the teacher's guide (``docs/teaching/``) answers every
question for teachers.

Question ids are ``"2.N-qK"``: section 2.N (notebook ``02-NN``), the K-th prediction of that
notebook in reading order. A :class:`ChoiceKey` stores the index of the right option (into the
options the notebook shows); a :class:`NumberKey` the number and the tolerance of
:func:`helpers.ui.predict.grade_number`. Explanations are Chinese, like the notebooks; they are
shown only after the learner submitted a prediction or asked to see the answer.
"""

from __future__ import annotations

import re
from typing import NamedTuple

__all__ = ["ChoiceKey", "NumberKey", "KEYS", "QID", "Recall", "WARMUP_KEYS", "WARMUP_QID"]

QID = re.compile(r"^2\.(?:[0-9]|1[0-3])-q[1-9][0-9]*$")


class ChoiceKey(NamedTuple):
    """The key of a multiple-choice prediction: the index of the right option and why."""

    answer: int
    explanation: str


class NumberKey(NamedTuple):
    """The key of a numeric prediction: right when ``|value - answer| <= max(rel_tol * |answer|, abs_tol)``."""

    answer: float
    explanation: str
    rel_tol: float = 0.1
    abs_tol: float = 0.0


KEYS: dict[str, ChoiceKey | NumberKey] = {
    # 02-01-contextual-representations.ipynb
    "2.1-q1": ChoiceKey(0, "静态嵌入是一张查找表，查 “it” 时根本不看邻居，两句拿到的是同一行，同一个向量和自己的夹角为 0，余弦为 1。"),
    "2.1-q2": ChoiceKey(1, "只有 “it” 的词向量在 pronoun 轴上非零，而这一行给 “it” 自己的权重是 0，所以加权和在这一轴上是 0：代词的身份没有被带进来。"),
    # 02-02-soft-lookup.ipynb
    "2.2-q1": ChoiceKey(1, "s/τ → 0，softmax 的每个权重都趋于 1/n，输出就是所有值的平均：温度越高，越不挑。"),
    "2.2-q2": ChoiceKey(0, "在 q 附近，分数最高的仍是同一个键，硬查找的输出一点也不变，差分的分子是 0。"
                        "除了打平的点，硬查找的梯度处处为 0：对训练来说等于没有信号。"),
    # 02-03-qkv-projections.ipynb
    "2.3-q1": ChoiceKey(0, "投影逐行作用在每个 token 上，同一个 W_Q 用于每个位置；随 T 变的是 Q 的行数，不是 W_Q。"),
    "2.3-q2": ChoiceKey(2, "共享时 W = W_Q + W_K 把 it 映成 (2, 0)，把 animal 和 tired 都映成 (1, 0)：it·animal = 2，it·it = ‖(2, 0)‖² = 4。"
                        "为了让 it·animal 变大，it 自己的向量也被拉长了，于是在这个例子里 it 最像它自己（并非每次都如此，见试一试）。"),
    # 02-04-dot-product-scores.ipynb
    "2.4-q1": ChoiceKey(1, "q·(2k) = 2(q·k)：点积对每个向量都是线性的。余弦相似度先除以两个长度，2 倍的长度在分子和分母里约掉了。"),
    "2.4-q2": NumberKey(168, "S 的形状是 (T_q, T_kv) = (3, 7)，共 21 个分数；"
                        "每个分数是 d_k = 4 次乘加，即 8 flops；21 × 8 = 168。"
                        "一般地，整张 S 是 2·T_q·T_kv·d_k flops。", rel_tol=0.01),
    # 02-05-scaling-by-sqrt-dk.ipynb
    "2.5-q1": ChoiceKey(2, "方差是 d_k，标准差是 √d_k：√1024 / √16 = 32 / 4 = 8。64 倍是方差之比，不是标准差之比。"),
    "2.5-q2": ChoiceKey(2, "两个分数时 ‖J‖_F = 2·α₁·α₂。(5,4) 时 α₂ 约 0.27；"
                        "(50,40) 时 α₂ 只有 e⁻¹⁰ 量级，乘积缩小了三个多数量级：饱和区的梯度几乎为 0。"),
    "2.5-q3": ChoiceKey(1, "除以 √d_k 之后，一个查询的分数是 (‖q‖/√d_k)·z_j/τ，z_j ~ N(0, 1)：因子 ‖q‖/√d_k 乘在分数上，"
                        "是这个查询自带的逆温度，d_k 不太小时它几乎总是接近 1，所以饱和的比例主要由 1/τ 决定。"
                        "从 d_k = 8 到 1024，它只上升了一点：远小于不缩放时的上升，但每个 d_k 各抽大量样本时，这点上升超过 4 个标准误，"
                        "所以不是严格不变；"
                        "不缩放时比例随 d_k 一路上升。只看一个种子会得出错误的印象。"),
    # 02-06-softmax-as-normalization.ipynb
    "2.6-q1": ChoiceKey(1, "axis=0 让每一列（每个键）在所有查询之间归一化。方阵的形状不变，所以不会报错；和为 1 的变成了列，行和一般不是 1。"),
    "2.6-q2": ChoiceKey(1, "100 和 99 都超过 ln(float32 的最大值)（float32 的这个界比 float64 的低得多），float32 的 exp 上溢为 inf："
                        "前两项是 inf，分母也是 inf，inf/inf = nan；第三项 1/inf = 0。numpy 只发警告、不抛异常。"
                        "先减去行最大值，分数变成 (0, −1, −100)，exp 都不超过 1，才算得出正确的权重。"),
    # 02-07-the-whole-formula.ipynb
    "2.7-q1": ChoiceKey(1, "A = softmax(...) 是 (T, T)，再右乘 V (T, d_v)：输出的宽度来自 V，是 d_v = 4，既不是 d_k，也不是 d_model。"),
    "2.7-q2": ChoiceKey(2, "第 3 个 token 变了，它的 q_3 变了（影响第 3 行），它的 k_3 和 v_3 也变了——而每个查询都要与所有键打分、从所有值里取数，所以每一行都会变。"
                        "“各算各的”说的是输出行之间不互相等待，不是说一行只依赖自己的 token。"
                        "（这是精确算术里的结论。浮点数里有例外：权重不缩放、分数很大时 softmax 饱和，一行权重的变化可能小于舍入误差，"
                        "那一行就逐位不变；按 1/√d_model 缩放权重后，随机抽样里每一行都变了。）"
                        "（2.10 节的因果掩码会让前面的行不再受后面 token 的影响。）"),
    # 02-08-worked-example.ipynb
    "2.8-q1": ChoiceKey(0, "q₃·k_j = k_j 两个分量之和；"
                        "这个例子里每个键的两个分量之和都是 2，所以第 3 行的四个分数相等，softmax 把相等的分数变成均匀分布。"),
    "2.8-q2": ChoiceKey(2, "第 1 行分数减去 2 是 (0, 2, 1, 1)，第 2 行是 (2, 0, 1, 1)：只是前两项对调。"
                        "softmax 对整行加减同一个数不变，所以第 2 行的权重就是第 1 行前两项对调，A₁₂ = A₂₁。"),
    "2.8-q3": NumberKey(3.0, "记第 1 行权重为 (a, b, c, c)，第 2 行为 (b, a, c, c)。"
                        "两行之和 = (a+b)(v₁+v₂) + 2c(v₃+v₄)；"
                        "而 v₁+v₂ = v₃+v₄ = (2, 3)，a+b+2c = 1，所以和恰好是 (2, 3)，与权重无关。", rel_tol=0.0, abs_tol=0.01),
    # 02-09-properties.ipynb
    "2.9-q1": ChoiceKey(0, "输出第 i 行只由 q_i 和全体 (k_j, v_j) 决定，而 q_i = x_i W_Q 不含位置。"
                        "两个 'the' 的 x 相同，q 就相同，面对的是同一组键和值，所以输出完全相同。"),
    "2.9-q2": NumberKey(100, "元素个数是 T²：长度乘 10，元素个数乘 10² = 100。内存同样乘 100，这就是“二次”的含义。", rel_tol=0.01),
    # 02-10-causal-mask.ipynb
    "2.10-q1": ChoiceKey(1, "softmax 时分母里已经算上了未来的词；"
                         "事后清零只删掉了分子里的那几项，没有重新归一化，所以除最后一行外每行的和都小于 1（第 1 行只剩它自己那一项）。"),
    "2.10-q2": NumberKey(4, "第 1–4 行看不见第 5 个词（权重恰好是 0），一位都不变；第 5–8 行都能看见它，都会变：8 − 4 = 4 行。"),
    # 02-11-beyond-single-head.ipynb
    "2.11-q1": ChoiceKey(1, "每个头的 W_Q 是 768 × 64，12 个并排正好是 768 × 768，和一个宽 768 的头一样；"
                         "W_K、W_V 同理。多头不增加投影参数，只是把同样宽的投影切成了 12 段。"),
    "2.11-q2": ChoiceKey(1, "层本身仍然排列等变，但它的输入变了：同一个词坐到新位置上，加到它身上的是另一个 p_t，所以新输入不再是原输入的一个排列，输出也就不再只是换位置。"),
    # 02-13-real-model-attention.ipynb
    "2.13-q1": ChoiceKey(2, "基本切分先把撇号（'）单独切开，得到 didn、'、t 三段；"
                         "didn 恰好是词表里的一整条，所以不必再切成 did、##n。"),
    "2.13-q2": ChoiceKey(1, "这个模型没有专门学指代消解；多数头的差值在 0 附近小幅抖动，按符号数，两个方向的翻转数目差不多。"),
}


# --------------------------------------------------------------------------- retrieval warm-ups
#
# Each lesson notebook (2.2 ... 2.12) opens with a warm-up that recalls earlier notebooks: two
# questions, answered from memory (blind: nothing above them in the notebook gives the answer), graded by
# the same graders as the predictions (helpers.ui.warmup). Ids are "2.N-wK", separate from the
# predictions' "2.N-qK" (a warm-up has no reveal cell: the answer is in an earlier notebook). Each key names
# the section it recalls; the question text names it too, "（2.4）...", so a learner who got it wrong knows
# where to re-read. The teacher's guide answers every warm-up under 热身题答案.

WARMUP_QID = re.compile(r"^2\.(?:[2-9]|1[0-3])-w[1-9][0-9]*$")


class Recall(NamedTuple):
    """The key of a warm-up question: the section it recalls (``"2.4"``) and the key proper."""

    recalls: str
    key: ChoiceKey | NumberKey


WARMUP_KEYS: dict[str, Recall] = {
    # 02-02-soft-lookup.ipynb (2.1 is the only lesson before it)
    "2.2-w1": Recall("2.1", NumberKey(1.0, "静态嵌入是一张查找表：查 “it” 时不看邻居，两句拿到同一行、同一个向量，"
                                      "夹角为 0，余弦为 1。上下文进不来，这正是 2.1 节提出的问题。", rel_tol=0.0, abs_tol=0.01)),
    "2.2-w2": Recall("2.1", ChoiceKey(2, "注意力的一行是一个分布：每个权重非负，全部加起来等于 1。"
                                      "于是加权和 c = Σ_j α_j x_j 是各个 x_j 的加权平均。")),
    # 02-03-qkv-projections.ipynb
    "2.3-w1": Recall("2.2", ChoiceKey(0, "τ → 0 时 s/τ 的差距被无限放大，softmax 把几乎全部权重给分数最高的键：软查找收敛到硬查找。"
                                      "τ → ∞ 才是所有值的平均。")),
    "2.3-w2": Recall("2.1", ChoiceKey(1, "每个查询的一行权重 α_i 乘 X 的各行再相加，就是 c_i = α_i X；把各行摞起来，C = AX。"
                                      "加上 W_V，这就是公式里的 AV。")),
    # 02-04-dot-product-scores.ipynb
    "2.4-w1": Recall("2.3", ChoiceKey(3, "共用一个投影时 q_i 和 k_i 是同一个向量，S_ij = q_i·q_j = q_j·q_i = S_ji："
                                      "“it 看 animal” 与 “animal 看 it” 的分数必然相等。分开的 W_Q、W_K 才让关系有方向。")),
    "2.4-w2": Recall("2.2", ChoiceKey(1, "sim_i / Σ_j sim_j 只有在相似度都非负时才是分布：有负数时权重可以是负的，分母甚至可以是 0。"
                                      "先取 exp 就变成 softmax，任何实数分数都能用。")),
    # 02-05-scaling-by-sqrt-dk.ipynb
    "2.5-w1": Recall("2.4", NumberKey(200, "S 有 T_q·T_kv = 2 × 5 = 10 个分数，每个是 d_k = 10 次乘加，即 20 flops；"
                                      "10 × 20 = 200。一般地，整张 S 是 2·T_q·T_kv·d_k flops。", rel_tol=0.0, abs_tol=0.5)),
    "2.5-w2": Recall("2.3", NumberKey(4, "输出是 A V，宽度来自 V：每行 d_v = 4 个数。d_k 只出现在打分里，在 QKᵀ 处就消掉了。",
                                      rel_tol=0.01)),
    # 02-06-softmax-as-normalization.ipynb
    "2.6-w1": Recall("2.5", NumberKey(8, "分量独立、零均值、单位方差时 Var(q·k) = d_k = 64，标准差是 √64 = 8。"
                                      "所以要除以 √d_k，而不是 d_k。", rel_tol=0.05)),
    "2.6-w2": Recall("2.4", ChoiceKey(0, "S = QKᵀ 的第 i 行是查询 i 对所有键的打分；第 j 列是键 j 被每个查询打的分。"
                                      "键 j 实际拿到多少注意力，要看 softmax 之后 A 的第 j 列：各行的分数不在同一把尺子上。")),
    # 02-07-the-whole-formula.ipynb
    "2.7-w1": Recall("2.6", ChoiceKey(1, "沿每一行（axis=-1）：第 i 行是查询 i 对所有键的打分，softmax 后是查询 i 的一份分布，和为 1。"
                                      "沿列归一化在方阵上不会报错，只能靠检查行和抓住。")),
    "2.7-w2": Recall("2.5", ChoiceKey(2, "分数差很大时 softmax 接近独热，雅可比矩阵 diag(α) − αᵀα 的每一项都接近 0："
                                      "能穿过 softmax 的梯度几乎消失，训练卡住。这就是要除以 √d_k 的原因。")),
    # 02-08-worked-example.ipynb
    "2.8-w1": Recall("2.7", NumberKey(110, "W_Q、W_K 各是 d_model × d_k = 10 × 4，W_V 是 d_model × d_v = 10 × 3："
                                      "40 + 40 + 30 = 110，即 d_model(2d_k + d_v)。与 T 无关：同一组矩阵用于每个位置。", rel_tol=0.0, abs_tol=0.5)),
    "2.8-w2": Recall("2.6", ChoiceKey(1, "softmax 对一整行加减同一个数不变，所以每行减去它自己的最大值：exp 的最大项是 1，不会上溢。"
                                      "减去整个矩阵的最大值，远低于它的行会全部下溢成 0，得到 0/0。")),
    # 02-09-properties.ipynb
    "2.9-w1": Recall("2.8", ChoiceKey(2, "q₃ = q₄ = (1, 1)，q·k_j 是 k_j 两个分量之和，而每个键的两个分量之和都是 2："
                                      "四个分数相等，softmax 把相等的分数变成均匀分布。与 V 无关。")),
    "2.9-w2": Recall("2.7", ChoiceKey(1, "S = QKᵀ 把 d_k 维的 q 和 k 收成一个数：从 S 起形状是 (T, T)，d_k 不再出现；"
                                      "输出 AV 的宽度是 d_v。")),
    # 02-10-causal-mask.ipynb
    "2.10-w1": Recall("2.9", ChoiceKey(3, "排列等变：Attention(PX) = P·Attention(X)。打乱输入的行，输出的行按同样的方式打乱，"
                                       "每个词的输出本身不变。所以自注意力需要另外注入位置信息。")),
    "2.10-w2": Recall("2.8", ChoiceKey(1, "第 2 行的分数是第 1 行前两项对调（只差一个整行共有的常数），softmax 对整行平移不变，"
                                       "所以第 2 行的权重就是第 1 行前两项对调：(b, a, c, c)。")),
    # 02-11-beyond-single-head.ipynb
    "2.11-w1": Recall("2.10", ChoiceKey(0, "M 在对角线及以下为 0、以上为 −∞，加在缩放后的分数上、softmax 之前："
                                        "未来位置的权重恰好是 0，每行仍然和为 1。softmax 之后再清零，行和就不再是 1。")),
    "2.11-w2": Recall("2.9", NumberKey(9, "分数矩阵有 T² 个元素：长度乘 3，元素个数和内存都乘 3² = 9。", rel_tol=0.01)),
    # 02-12-summary.ipynb
    "2.12-w1": Recall("2.11", ChoiceKey(2, "每个头只有 d_head = d_model / h = 512 / 8 = 64 个分量，它的分数方差是 64，"
                                        "所以除以 √d_head = √64 = 8，不是 √d_model。")),
    "2.12-w2": Recall("2.10", ChoiceKey(0, "第 1 个 token 只能看见它自己：第 1 行只有一个未被屏蔽的分数，softmax 把全部权重给它，"
                                        "A 的第 1 行是 (1, 0, 0, 0, 0)，与分数无关。")),
}
