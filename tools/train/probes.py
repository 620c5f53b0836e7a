"""Two everyday passages, written for this project (not taken from the training sources), to see
how the model does on ordinary prose unlike its technical and proverbial training text."""

ENGLISH_PASSAGE = (
    "On Saturday morning we walked to the market before it got too hot. My sister wanted fresh "
    "bread and a bag of apples, and I was looking for a cheap umbrella because mine had broken in "
    "the storm last week. The streets were full of people carrying baskets, and a man was playing "
    "the guitar near the fountain. We stopped to listen for a while, then bought two cups of tea "
    "and sat on the steps of the old library. It was a quiet, happy start to the weekend, and we "
    "promised each other to come back next month."
)

CHINESE_PASSAGE = (
    "星期六早上，我们趁天气还不太热的时候走路去了菜市场。妹妹想买新鲜的面包和一袋苹果，"
    "我想找一把便宜的雨伞，因为我的伞上个星期在大风雨里坏了。街上到处都是提着篮子的人，"
    "喷泉旁边有一个人在弹吉他。我们停下来听了一会儿，然后买了两杯茶，坐在老图书馆门口的台阶上。"
    "这是一个安静又愉快的周末开头，我们约好下个月再来。"
)
