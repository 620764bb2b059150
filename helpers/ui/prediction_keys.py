"""The answer keys of the predict-then-run questions, kept out of the notebooks.

A prediction cell shows only its question and choices, ``H.predict_choice("2.5-q1", question,
options)``; the key and the explanation live here, under the question's id, so a class that
reads the cell on a projector cannot read the answer before it votes. The reveal cell after the
question asserts ``H.prediction_key("2.5-q1")`` against what it computes, and the teacher's
guide (``docs/teaching/``) answers every question for teachers.

Question ids are ``"2.N-qK"``: section 2.N (notebook ``02-NN``), the K-th prediction of that
notebook in reading order. A :class:`ChoiceKey` stores the index of the right option (into the
options the notebook shows); a :class:`NumberKey` the number and the tolerance of
:func:`helpers.ui.predict.grade_number`. Explanations are Chinese, like the notebooks; they are
shown only after the learner submitted a prediction or asked to see the answer.
"""

from __future__ import annotations

import re
from typing import NamedTuple

__all__ = ["ChoiceKey", "NumberKey", "KEYS", "QID"]

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
