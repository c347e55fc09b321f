// 8-input priority encoder.
//   valid = 1 when any bit of req is set;
//   idx   = the position of the highest set bit of req (0 when req is 0).
// Combinational logic only: every output gets a value on every path through the always block,
// otherwise synthesis infers a latch (the grader refuses latches).
module prio_enc (
    input  wire [7:0] req,
    output reg  [2:0] idx,
    output reg        valid
);
    always @* begin
        // TODO: defaults first (idx = 0; valid = 0;), then the highest set bit wins.
    end
endmodule
