/* ops/rnn.h — recurrent layers (ops/rnn.c): the composites autograd/decomp.c runs as their pieces. */
#ifndef TN_OPS_RNN_H
#define TN_OPS_RNN_H
#include "dispatch/door.h"
PyObject *tn_op_rnn_tanh_input(tn_value *a);
PyObject *tn_op_rnn_tanh_data(tn_value *a);
PyObject *tn_op_rnn_relu_input(tn_value *a);
PyObject *tn_op_rnn_relu_data(tn_value *a);
PyObject *tn_op_lstm_input(tn_value *a);
PyObject *tn_op_lstm_data(tn_value *a);
PyObject *tn_op_gru_input(tn_value *a);
PyObject *tn_op_gru_data(tn_value *a);
PyObject *tn_op_rnn_tanh_cell(tn_value *a);
PyObject *tn_op_rnn_relu_cell(tn_value *a);
PyObject *tn_op_lstm_cell(tn_value *a);
PyObject *tn_op_gru_cell(tn_value *a);
PyObject *tn_op__pack_padded_sequence_backward(tn_value *a);
PyObject *tn_op__pad_packed_sequence(tn_value *a);
PyObject *tn_op_pad_sequence(tn_value *a);
PyObject *tn_op_mkldnn_rnn_layer(tn_value *a);
PyObject *tn_op_mkldnn_rnn_layer_backward(tn_value *a);
PyObject *tn_rnn_lstm_layer_backward(PyObject *input, PyObject *w0, PyObject *w1, PyObject *w2, PyObject *w3, PyObject *hx_,
                                     PyObject *cx_, PyObject *output, PyObject *go, PyObject *ghy, PyObject *gcy,
                                     bool reverse, int64_t hidden, bool has_biases, bool clone_bias);
#endif
