// Unsigned saturating adder, W bits wide:
//   y        = a + b when it fits in W bits, else the largest W-bit value (all ones);
//   overflow = 1 exactly when the sum did not fit.
// The grader simulates it for W = 8 and another width, with random and corner-case inputs.
module sat_add #(parameter W = 8) (
    input  wire [W-1:0] a,
    input  wire [W-1:0] b,
    output wire [W-1:0] y,
    output wire         overflow
);
    // TODO: form the W+1-bit sum, then saturate y and set overflow from its top bit.
    assign y = {W{1'b0}};
    assign overflow = 1'b0;
endmodule
