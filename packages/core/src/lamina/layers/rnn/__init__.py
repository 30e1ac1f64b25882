"""Recurrent layers: RNN and its cells, SimpleRNN, GRU, LSTM, ConvLSTM, and the wrappers
Bidirectional and TimeDistributed."""

from lamina.layers.rnn.bidirectional import Bidirectional as Bidirectional
from lamina.layers.rnn.conv_lstm import ConvLSTM1D as ConvLSTM1D
from lamina.layers.rnn.conv_lstm import ConvLSTM2D as ConvLSTM2D
from lamina.layers.rnn.conv_lstm import ConvLSTM3D as ConvLSTM3D
from lamina.layers.rnn.gru import GRU as GRU
from lamina.layers.rnn.gru import GRUCell as GRUCell
from lamina.layers.rnn.lstm import LSTM as LSTM
from lamina.layers.rnn.lstm import LSTMCell as LSTMCell
from lamina.layers.rnn.rnn import RNN as RNN
from lamina.layers.rnn.simple_rnn import SimpleRNN as SimpleRNN
from lamina.layers.rnn.simple_rnn import SimpleRNNCell as SimpleRNNCell
from lamina.layers.rnn.stacked_rnn_cells import StackedRNNCells as StackedRNNCells
from lamina.layers.rnn.time_distributed import TimeDistributed as TimeDistributed
from lamina.layers.rnn.wrapper import Wrapper as Wrapper

__all__ = [
    "GRU",
    "LSTM",
    "RNN",
    "Bidirectional",
    "ConvLSTM1D",
    "ConvLSTM2D",
    "ConvLSTM3D",
    "GRUCell",
    "LSTMCell",
    "SimpleRNN",
    "SimpleRNNCell",
    "StackedRNNCells",
    "TimeDistributed",
    "Wrapper",
]
