module sat_add #(parameter W = 8) (
    input  wire [W-1:0] a,
    input  wire [W-1:0] b,
    output wire [W-1:0] y,
    output wire         overflow
);
    wire [W:0] sum = a + b;
    assign overflow = sum[W];
    assign y = sum[W] ? {W{1'b1}} : sum[W-1:0];
endmodule
