"""The manifest: the three plans of the teacher's guide, each row with the slides that carry it.

A slide is named here by its notebook and a slug (``"02-05/explorer"``); the cells that make it carry
that name in their metadata (``metadata["slides"]``: which role, which blocks, the live call's keyword
arguments; :mod:`publish.deck.slides`), so this file names no cell. What belongs to the plan is here:
the order of the slides, the rows and their minutes, which slides a row skips when time is short,
a live demo's minutes, and the activity slides that exist only in the deck. Building a deck fails,
naming the deck and the slide, when a slide's cells are gone (``tests/test_lecture.py``). The plan
tables and the slide-to-minute tables of ``docs/teaching/README.md`` are printed from here
(``python -m publish deck 1 --plan``, ``--schedule``) and a test keeps the guide equal to them.
"""

from __future__ import annotations

from .slides import Deck, Row, activity, figure, live, text, vote

__all__ = ["DECKS", "OPTIONAL_TAUGHT"]

#: Slides the plan teaches from a notebook's 选读 (optional) section, on purpose (any other is a test failure).
OPTIONAL_TAUGHT = frozenset({"02-09/online-softmax"})

LECTURE_1 = Deck("1", "第一讲：从“为什么需要上下文”到 softmax（2.1–2.6）", (
    Row("开场", "2.0 目录：核心公式与记号约定（行向量、形状）；预测题怎样投票", 2, "演示视图", (
        text("02-00/about"),
        # The notation list (its flops bullet stops at one dot product: 2.4-q2 asks for the whole of S = QKᵀ).
        text("02-00/notation", skip=True),
        activity("怎样上这两讲", "每道预测题先全班举手投票，再点开答案；选读与练习留到课后和实验课。", 1),
    ), page="02-00"),
    Row("2.1", "静态嵌入为什么不够；一行权重是一个分布；加权和（预测题 2 道）", 14, "演示视图", (
        text("02-01/title"),
        text("02-01/two-sentences"),
        text("02-01/static-embedding"),
        vote("02-01/q1"),
        figure("02-01/it-weights"),
        text("02-01/weighted-sum"),
        vote("02-01/q2"),
        figure("02-01/it-axes", skip=True),
    ), page="02-01"),
    Row("2.2", "字典查找 → 软查找；温度 τ → 0；硬查找没有梯度", 15, "演示视图", (
        text("02-02/title"),
        text("02-02/one-hot"),
        text("02-02/soften"),
        text("02-02/sim-nonnegative", skip=True),  # the problem (sim < 0) with its fix, not the fix alone
        text("02-02/temperature"),
        vote("02-02/q1"),
        figure("02-02/temperature-sweep"),
        text("02-02/softmax-derivative", skip=True),
        vote("02-02/q2"),
        text("02-02/no-gradient"),
    ), page="02-02"),
    Row("2.3", "三个投影与形状；共享投影为什么让分数矩阵对称", 12, "演示视图", (
        text("02-03/title"),
        text("02-03/three-roles"),
        text("02-03/stack", skip=True),
        vote("02-03/q1"),
        text("02-03/shared-projection"),
        vote("02-03/q2"),
        figure("02-03/symmetric-heatmaps"),
        text("02-03/value-matrix", skip=True),
    ), page="02-03"),
    Row("2.4", "点积与夹角；长度也进入分数；S = QKᵀ 的形状与代价", 8, "演示视图", (
        text("02-04/title"),
        text("02-04/geometry"),
        vote("02-04/q1"),
        figure("02-04/angle-and-length"),  # its caption names helpers functions (code)
        text("02-04/length-counts", skip=True),
        text("02-04/score-matrix"),
        figure("02-04/cost-table", skip=True),
        vote("02-04/q2", skip=True),
    ), page="02-04"),
    Row("2.5", "Var(q·k) = d_k；饱和与雅可比矩阵；饱和浏览器：先未缩放、再缩放，拖 d_k 与 1/τ", 21, "演示视图（2.5 的浏览器）", (
        text("02-05/title"),
        text("02-05/problem"),  # the problem, then the assumption
        text("02-05/step-1", skip=True),
        # the derivation's steps 2 and 3 as their formulas (the guide: step 3 may be told as its conclusion)
        text("02-05/step-2"),
        text("02-05/step-3"),
        vote("02-05/q1"),  # the question says it all
        text("02-05/saturation"),
        # J and its norm before the vote that asks about ||J||_F (the quotient-rule line and the code notes stay out)
        text("02-05/jacobian"),
        vote("02-05/q2"),
        # The vote before the explorer: its step 3 (scaled, 1/tau = 10) shows the saturated share over 200 seeds,
        # which is this vote's answer (the notebook asks it before the explorer too).
        vote("02-05/q3", skip=True),
        # in its projector layout (the live cell's kwargs: layout="lecture"); notes: the guide's four steps of the demo
        live("02-05/explorer", demo=6.6, notes=tuple(f"02-05#核心路径与时间/{i}" for i in (1, 2, 3, 4))),
    ), page="02-05"),
    Row("2.6", "按行 softmax；错轴的 bug；凸组合；数值稳定（减去每行最大值）", 14, "演示视图", (
        text("02-06/title"),
        text("02-06/row-softmax"),
        vote("02-06/q1"),
        figure("02-06/wrong-axis"),
        figure("02-06/convex-combination", skip=True),
        text("02-06/overflow"),
        vote("02-06/q2"),
        text("02-06/subtract-max"),
    ), page="02-06"),
    Row("收尾", "回答预测题里分歧最大的一道；布置课后练习", 4, "—", (
        activity("收尾", "回到全班分歧最大的那道预测题，请两位同学说理由；课后：每节的「试一试」与练习。", 4),
    )),
))

LECTURE_2 = Deck("2", "第二讲：完整公式、手算例子与因果掩码（2.7–2.12）", (
    Row("回顾", "上一讲的公式；五步的名字", 4, "演示视图", (
        text("02-00/recap-formula"),
        # The steps' names only: their shapes are the next row's first vote (2.7-q1 asks for the output's shape).
        activity("回顾", "请一位同学在白板上按顺序写出五步的名字（投影、打分、缩放、softmax、加权求和），"
                         "先不写形状（下一张的投票问的就是形状），其余同学纠错。", 2.8),
    )),
    Row("2.7", "五步与每一步的形状；形状流转图；没有递归", 11, "演示视图", (
        text("02-07/title"),
        vote("02-07/q1"),
        text("02-07/step-1"),
        text("02-07/step-2"),
        text("02-07/step-3"),
        text("02-07/step-4"),
        text("02-07/step-5"),
        figure("02-07/shape-flow"),
        text("02-07/no-recurrence", skip=True),  # the idea on its own slide: with its answer shown the vote overflowed 720p
        vote("02-07/q2", skip=True),
    ), page="02-07"),
    Row("2.8", "书中 4 个 token 的例子：Q、K、V、S 上屏；为什么第 3、4 行是均匀的；两行输出之和（笔误与舍入留给课后）", 16, "演示视图（热力图）", (
        text("02-08/title"),
        text("02-08/inputs"),
        figure("02-08/qkv"),  # the numbers on screen: Q, K, V as the notebook prints them
        vote("02-08/q1"),  # the widget asks the whole question
        figure("02-08/scores"),  # S after the vote on row 3 (its rows 3 and 4 are the answer), before A_12 vs A_21
        text("02-08/uniform-rows"),
        vote("02-08/q2"),
        vote("02-08/q3"),
        text("02-08/errata", skip=True),  # section 7 (the counting rule is a 选读 now; block 3 is about the code)
    ), page="02-08"),
    Row("2.9", "置换等变、全局连通、内容寻址、平方代价；在线 softmax", 16, "演示视图", (
        text("02-09/title"),
        text("02-09/equivariance"),
        vote("02-09/q1"),
        figure("02-09/shuffle"),
        text("02-09/global"),
        figure("02-09/perturb-a-row", skip=True),
        text("02-09/content-addressing"),
        # The text slide before it says the whole idea (the weight moves with its key-value pair); the figure shows
        # it again: skipped to make room for 2.13's explorer (lecture 2 stays 90 minutes).
        figure("02-09/move-a-word", skip=True),
        vote("02-09/q2"),
        # A 选读 section of the notebook, taught all the same: the 02-09 guide's one line to teach (the update).
        text("02-09/online-softmax", notes=("02-09#讨论题/2",)),  # notes: why m, and the rescale by e^{m-m'}
    ), page="02-09"),
    Row("2.10", "因果掩码加在 softmax 之前；因果性测试；位置滑块", 15, "演示视图（2.10 的滑块）", (
        text("02-10/title"),
        text("02-10/mask"),
        text("02-10/before-softmax"),
        vote("02-10/q1"),
        figure("02-10/causal-weights"),
        text("02-10/book-sentence", skip=True),
        vote("02-10/q2"),
        # from position 1, where the narration starts (kwargs: t=1); notes: what a row sees, and right padding
        live("02-10/slider", demo=3.6, notes=("02-10#常见误解/3", "02-10#讨论题/2")),
    ), page="02-10"),
    Row("2.11", "多头、位置编码、Transformer 块的预告", 15, "演示视图", (
        text("02-11/title"),
        text("02-11/heads"),  # one head's own projection
        # The vote before the stacked W_Q (d_model x h*d_head): with d_head = d_model/h that slide shows the answer.
        vote("02-11/q1"),
        text("02-11/one-product"),  # all heads in one product, then split_heads
        figure("02-11/two-heads"),
        text("02-11/positions"),
        vote("02-11/q2"),
        text("02-11/block", skip=True),  # where LayerNorm goes (block 2 stops on a colon; 1-3 overflow 720p)
    ), page="02-11"),
    # The real model (all-MiniLM-L6-v2, 6 x 12 heads, each the chapter's formula) answers the chapter's own question
    # live: the class proposes sentences, the teacher types them. The deck's kernel loads the weights as 2.13 does
    # (its first cell: from the cache, verified; fetched on first use); without them the slide says so in Chinese.
    Row("2.13", "真实模型：全班出句子，老师现场输入，看 “it” 看向哪里（6 层 × 12 头的注意力探索器）", 5,
        "演示视图（2.13 的探索器）", (
            # the notebook's title (the chapter's question) over the explorer in its projector layout (kwargs:
            # layout="lecture"); notes: the guide's demo steps (it -> animal in layer 4 head 2, tired -> wide, the
            # [CLS] sink under 各头平均, the causal switch of 2.10, a student's sentence)
            live("02-13/explorer", demo=5, notes=tuple(f"02-13#第 7 节：探索器怎么演示/{i}" for i in (1, 2, 3, 4, 5))),
        )),  # no page: the row demos 2.13's explorer, it does not teach 2.13 (beyond the lecture: self-study)
    Row("2.12", "总结：形状总表；综合练习的要求", 4, "演示视图", (
        text("02-12/title"),
        text("02-12/shapes", notes=("02-07#常见误解/1", "02-07#常见误解/2")),  # the two width mistakes
        text("02-12/capstone-a", skip=True),  # the lab's slides say it again, with its time
        text("02-12/capstone-b", skip=True),
        text("02-12/weak-test", skip=True),
    ), page="02-12"),
    # 4 minutes (it was 8; the other 4 went to 2.13's explorer): one question, one group shares, the other is homework.
    Row("收尾", "讨论题（2.9、2.10 的指南页各一道，题目在幻灯片上，参考答案在讲者视图里；讨论一道，另一道留作课后）", 4, "—", (
        activity("讨论", "选一道：先两人一组讨论 2 分钟，再请一组分享；另一道留作课后思考。", 4,
                 ask=("02-10#讨论题/3", "02-09#讨论题/3")),
    )),
))

LAB = Deck("lab", "实验课：练习与综合练习（学生版）", (
    Row("准备", "发放学生版或计分的 lab-1，每人打开 JupyterLab，运行环境检查（计分：2.12 的 SEED 改成学号）", 10, "演示视图", (
        activity("准备", "- **不计分（学生版）**：解压或点开老师发的链接（不是完整版的 notebooks/），打开 JupyterLab，"
                         "运行 2.0「环境检查」一格：最后一行应是「一切就绪：需要的包都在。」\n"
                         "- **计分（lab-1）**：在 Assignments 页面 fetch lab-1，打开 2.2，运行最上面的环境检查；"
                         "2.12 的章末自测先把 SEED 改成你的学号再运行；做完保存，点 Submit，课后做完的部分在截止前再交。", 10),
    )),
    Row("练习一轮", "2.2、2.5 的迁移练习与预测题；自检（self-check）告诉学生对错", 20, "Lab", (
        activity("练习一轮", "2.2 与 2.5：先做预测题，再做迁移练习；每道练习下面的自检会说对不对、错在哪。", 20,
                 notes=("02-02#练习参考答案/3", "02-05#练习参考答案/1", "02-05#练习参考答案/2")),  # the transfer exercises
    )),
    Row("找 bug", "2.6 与 2.10 的 bug hunt：找到并修好，自检确认", 15, "Lab", (
        # notes: the two bugs of 2.6's exercise 3 and 2.10's bug hunt (the guides' answers)
        activity("找 bug", "2.6 的练习 3 与 2.10 的练习 2：先运行、看症状，再找出写错的那一行。", 15,
                 notes=("02-06#练习参考答案/3", "02-10#练习参考答案/2")),
    )),
    Row("综合练习 A", "2.12：只用 numpy 写批量、因果、多头的自注意力", 31, "Lab", (
        # notes: the prefix mask (core path); the answer and the mistakes the check names (练习参考答案)
        text("02-12/capstone-a", notes=("02-12#核心路径与时间/1", "02-12#练习参考答案/1")),
        # notes: the guide's misconceptions the check names (scaling by the total width, the reshape, the prefix)
        activity("综合练习 A", "在 2.12 里完成 my_causal_mha，直到自检通过。", 28,
                 notes=tuple(f"02-12#常见误解/{i}" for i in (1, 2, 3))),
    )),
    Row("综合练习 B", "2.12：写一个测试（因果性，加上打乱前面的词时最后一行不变），自检用几种坏实现检验它", 10, "Lab", (
        text("02-12/capstone-b", notes=("02-12#常见误解/4", "02-12#常见误解/5")),  # the task; the two properties a test needs
        # notes: why a test can reject the right implementation
        activity("综合练习 B", "写 my_test：放过正确的实现，抓住每个有毛病的实现。", 8,
                 notes=("02-12#讨论题/3",)),
    )),
    Row("收尾", "请两位同学讲自己的测试为什么能抓住坏实现", 4, "—", (
        activity("收尾", "两位同学讲：你的测试检验了哪条性质，为什么它能抓住坏实现？", 4, notes=("02-12#讨论题/1",)),
    )),
))

DECKS = {d.key: d for d in (LECTURE_1, LECTURE_2, LAB)}
