"""The manifest: the three plans of the teacher's guide, each row with the slides that carry it.

Every slide names a notebook and a cell id (``tests/test_lecture.py`` checks that every named cell
exists, has the right type and, for blocks, enough blocks). The plan tables and the slide-to-minute
tables of ``docs/teaching/README.md`` are printed from here (``python -m publish deck 1 --plan``,
``--schedule``) and a test keeps the guide equal to them.
"""

from __future__ import annotations

from .slides import Deck, Row, activity, figure, live, text, title, vote

__all__ = ["DECKS"]

# 2.5: the explorer in its projector layout; 2.10: the causal slider from position 1 (where the narration starts).
_EXPLORER_SETUP = ("174b30a9",)
_CAUSAL_SETUP = ("934c0146", "83c294ec", "7d398db3", "b5debadb")

LECTURE_1 = Deck("1", "第一讲：从“为什么需要上下文”到 softmax（2.1–2.6）", (
    Row("开场", "2.0 目录：核心公式与记号约定（行向量、形状）；预测题怎样投票", 3, "演示视图", (
        text("02-00", ("b3329d31", 1, 2, 3)),
        # The notation list (its flops bullet stops at one dot product: 2.4-q2 asks for the whole of S = QKᵀ).
        text("02-00", ("5f19e914", 1, 3), skip=True),
        activity("怎样上这两讲", "每道预测题先全班举手投票，再点开答案；选读与练习留到课后和实验课。", 1.5),
    ), page="02-00"),
    Row("2.1", "静态嵌入为什么不够；一行权重是一个分布；加权和（预测题 2 道）", 14, "演示视图", (
        title("02-01", "e16299e3"),
        text("02-01", ("879ea32c", 1, 2)),
        text("02-01", ("be5809c8", 1, 2)),
        vote("02-01", "2b29df1d", ("9222d47b", 1)),
        figure("02-01", "5775a523", ("18f50663", 1, 2)),
        text("02-01", ("6de8e1bc", 1, 2, 3)),
        vote("02-01", "93cf8085"),
        figure("02-01", "ef863779", ("25ad28ed", 1), skip=True),
        text("02-01", ("49dcf4e8", 1, 2)),
    ), page="02-01"),
    Row("2.2", "字典查找 → 软查找；温度 τ → 0；硬查找没有梯度", 15, "演示视图", (
        title("02-02", "fb028ef0"),
        text("02-02", ("101b36ce", 1, 2, 3)),
        text("02-02", ("4ecf5d44", 1, 2, 3)),
        text("02-02", "688016f1", ("995e010c", 1, 2)),  # the problem (sim < 0) with its fix, not the fix alone
        text("02-02", ("f121aa62", 1, 2, 3)),
        vote("02-02", "8ec53c01"),
        figure("02-02", "6b21cc75", heading="温度从 100 降到 0.01"),
        text("02-02", ("b7a7c3ff", 1, 3), skip=True),
        vote("02-02", "b2768930", ("50088e8c", 1)),
        text("02-02", "c18ec646"),
    ), page="02-02"),
    Row("2.3", "三个投影与形状；共享投影为什么让分数矩阵对称", 11, "演示视图", (
        title("02-03", "0a7c650d"),
        text("02-03", ("b2d14dec", 1, 3, 5)),
        text("02-03", ("5be08484", 1, 5)),
        vote("02-03", "7e75f3c5"),
        text("02-03", ("26d2ad1a", 1, 2, 3, 5)),
        vote("02-03", "965f1182"),
        figure("02-03", "ec8f82d1", "f34edd87"),
        text("02-03", ("be875351", 1, 2, 4), skip=True),
    ), page="02-03"),
    Row("2.4", "点积与夹角；长度也进入分数；S = QKᵀ 的形状与代价", 10, "演示视图", (
        title("02-04", "9e20608c"),
        text("02-04", ("bd07dd7a", 1, 2, 3)),
        vote("02-04", "47ecda41"),
        figure("02-04", "5f89118a", heading="点积与夹角：两种长度"),  # its caption names helpers functions (code)
        text("02-04", ("a38b20fc", 1, 2)),
        text("02-04", ("6c1881af", 1, 2, 3)),
        figure("02-04", "560f7ae6", ("cd2e46d2", 1, 3), skip=True),
        vote("02-04", "142e90b3"),
    ), page="02-04"),
    Row("2.5", "Var(q·k) = d_k；饱和与雅可比矩阵；饱和浏览器：先未缩放、再缩放，拖 d_k 与 1/τ；梯度消失", 20, "演示视图（2.5 的浏览器）", (
        title("02-05", "e2f480ae"),
        text("02-05", ("1d55758e", 1, 2, 3)),  # the problem, then the assumption
        text("02-05", "fc488829", skip=True),
        # the derivation's steps 2 and 3 as their formulas (the guide: step 3 may be told as its conclusion)
        text("02-05", ("a07a4509", 1, 3)),
        text("02-05", ("4e40b584", 1, 3)),
        vote("02-05", "bcd7ecc3", ("961147e6", 1)),  # the question says it all
        text("02-05", "a3c3cdc2"),
        # J and its norm before the vote that asks about ||J||_F (the quotient-rule line and the code notes stay out)
        text("02-05", ("020bb8b6", 1, 3, 5)),
        vote("02-05", "54608a0f"),
        # The vote before the explorer: its step 3 (scaled, 1/tau = 10) shows the saturated share over 200 seeds,
        # which is this vote's answer (the notebook asks it before the explorer too).
        vote("02-05", "f0cc5deb"),
        live("02-05", "f3f894d8", ("09820fea", 1), setup=_EXPLORER_SETUP, kwargs={"layout": "lecture"}, demo=6.5),
        figure("02-05", "21d04dc5", ("566de2d9", 1, 2), skip=True),
    ), page="02-05"),
    Row("2.6", "按行 softmax；错轴的 bug；凸组合；数值稳定（减去每行最大值）", 11, "演示视图", (
        title("02-06", "ee67abb3"),
        text("02-06", ("584a13f1", 1, 2, 3)),
        vote("02-06", "98be56e2"),
        figure("02-06", "468bb250", "ccc3156f"),
        figure("02-06", "c85cdc3c", ("602d5d75", 1, 2), skip=True),
        text("02-06", "8d76ac21"),
        vote("02-06", "68728e34"),
        text("02-06", "1abdff97"),
    ), page="02-06"),
    Row("收尾", "回答预测题里分歧最大的一道；布置课后练习", 6, "—", (
        activity("收尾", "回到全班分歧最大的那道预测题，请两位同学说理由；课后：每节的「试一试」与练习。", 6),
    )),
))

LECTURE_2 = Deck("2", "第二讲：完整公式、手算例子与因果掩码（2.7–2.12）", (
    Row("回顾", "上一讲的公式；五步与形状", 4, "演示视图", (
        text("02-00", ("b3329d31", 3)),
        activity("回顾", "请一位同学在白板上写出五步和每一步的形状，其余同学纠错。", 3),
    )),
    Row("2.7", "五步与每一步的形状；形状流转图；没有递归", 10, "演示视图", (
        title("02-07", "1ca6890a"),
        vote("02-07", "441e717d"),
        text("02-07", "6aa7a826"),
        text("02-07", "96196e63"),
        text("02-07", "320da711"),
        text("02-07", "c5bdb401"),
        text("02-07", "2d7151b0"),
        figure("02-07", "3be85d92", ("692754d3", 1)),
        text("02-07", "17967d7b", skip=True),  # the idea on its own slide: with its answer shown the vote overflowed 720p
        vote("02-07", "c3fd0adf", skip=True),
    ), page="02-07"),
    Row("2.8", "书中 4 个 token 的例子；为什么第 3、4 行是均匀的；笔误与舍入", 14, "演示视图（热力图）", (
        title("02-08", "885d6c26"),
        text("02-08", "13c70ab2"),
        vote("02-08", "51243a4d"),  # the widget asks the whole question
        text("02-08", "3b67e950"),
        vote("02-08", "10eac891", "4f6afb8f"),
        figure("02-08", "5d854e00", "23b04f84"),
        vote("02-08", "d547e3d2", "358b28e1", skip=True),
        text("02-08", ("822c6380", 1, 2)),  # section 7 (the counting rule is a 选读 now; block 3 is about the code)
    ), page="02-08"),
    Row("2.9", "置换等变、全局连通、内容寻址、平方代价；在线 softmax", 15, "演示视图", (
        title("02-09", "00f5c7e9"),
        text("02-09", ("d11327cf", 1, 5)),
        vote("02-09", "d5f4d16b"),
        figure("02-09", "cbaef648", "5f5dc5a3"),
        text("02-09", ("776f1b17", 1, 2)),
        figure("02-09", "89243122", heading="扰动输入的一行：哪些输出会动", skip=True),
        text("02-09", "efd21957"),
        figure("02-09", "985c666d", heading="内容寻址：把词挪个位置"),
        vote("02-09", "ef6c3f72"),
        text("02-09", ("629f5e2c", 1, 2, 3)),
    ), page="02-09"),
    Row("2.10", "因果掩码加在 softmax 之前；因果性测试；位置滑块", 14, "演示视图（2.10 的滑块）", (
        title("02-10", "8a5d1f00"),
        text("02-10", ("6a0ca39c", 1, 2)),
        text("02-10", ("de7af1d4", 1, 2, 3)),
        vote("02-10", "c571fffc"),
        figure("02-10", "a1e302ee", "ef9bc6e4"),
        text("02-10", "e0081ef3", skip=True),
        vote("02-10", "910f3673", ("740dcf6b", 1, 2)),
        live("02-10", "1e1ab526", ("d0ddd346", 1), setup=_CAUSAL_SETUP, kwargs={"t": 1}, demo=3),
    ), page="02-10"),
    Row("2.11", "多头、位置编码、Transformer 块的预告", 17, "演示视图", (
        title("02-11", "16f8be3c"),
        text("02-11", "d5b15967"),  # one head's own projection
        # The vote before the stacked W_Q (d_model x h*d_head): with d_head = d_model/h that slide shows the answer.
        vote("02-11", "42be827c", "a8cd538e"),
        text("02-11", "27855226"),  # all heads in one product, then split_heads
        figure("02-11", "2edb7ecb", "ef44fdb6"),
        text("02-11", "2623d4a0"),
        vote("02-11", "2c55281d", "fa64f259"),
        text("02-11", ("b8418f18", 1, 7), skip=True),  # where LayerNorm goes (block 2 stops on a colon; 1-3 overflow 720p)
    ), page="02-11"),
    Row("2.12", "总结：形状总表；综合练习的要求", 9, "演示视图", (
        title("02-12", "813a0cda"),
        text("02-12", "601c424a"),
        text("02-12", ("4fe4a13d", 1, 2, 3)),
        text("02-12", ("20cb9b1c", 1, 2)),
        text("02-12", "346d540b", skip=True),
    ), page="02-12"),
    Row("收尾", "讨论题一道（从 2.9 或 2.10 的指南页里选）", 7, "—", (
        activity("讨论", "从 2.9 或 2.10 的指南页里选一道讨论题：先两人一组讨论 3 分钟，再请两组分享。", 7),
    )),
))

LAB = Deck("lab", "实验课：练习与综合练习（学生版）", (
    Row("准备", "发放学生版，每人打开 JupyterLab，运行 2.0 的环境检查", 10, "演示视图", (
        activity("准备", "下载学生版，打开 JupyterLab，运行 2.0「环境检查」一格：最后一行应是 Everything needed is here.", 10),
    )),
    Row("练习一轮", "2.2、2.5 的迁移练习与预测题；自检（self-check）告诉学生对错", 20, "Lab", (
        activity("练习一轮", "2.2 与 2.5：先做预测题，再做迁移练习；每道练习下面的自检会说对不对、错在哪。", 20),
    )),
    Row("找 bug", "2.6 与 2.10 的 bug hunt：找到并修好，自检确认", 15, "Lab", (
        activity("找 bug", "2.6 的练习 3 与 2.10 的练习 2：先运行、看症状，再找出写错的那一行。", 15),
    )),
    Row("综合练习 A", "2.12：只用 numpy 写批量、因果、多头的自注意力", 31, "Lab", (
        text("02-12", ("4fe4a13d", 1, 2, 3)),
        activity("综合练习 A", "在 2.12 里完成 my_causal_mha，直到自检通过。", 28),
    )),
    Row("综合练习 B", "2.12：写一个测试（因果性或置换等变），自检用几种坏实现检验它", 10, "Lab", (
        text("02-12", ("20cb9b1c", 1, 2)),  # the task, not the lead-in to the weak test
        activity("综合练习 B", "写 my_test：放过正确的实现，抓住每个有毛病的实现。", 8),
    )),
    Row("收尾", "请两位同学讲自己的测试为什么能抓住坏实现", 4, "—", (
        activity("收尾", "两位同学讲：你的测试检验了哪条性质，为什么它能抓住坏实现？", 4),
    )),
))

DECKS = {d.key: d for d in (LECTURE_1, LECTURE_2, LAB)}
