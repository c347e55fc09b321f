// forgets the defaults: idx and valid keep their old values when req is 0 (a latch)
module prio_enc (input wire [7:0] req, output reg [2:0] idx, output reg valid);
    always @* begin
        casez (req)
            8'b1???????: begin idx = 3'd7; valid = 1'b1; end
            8'b01??????: begin idx = 3'd6; valid = 1'b1; end
            8'b001?????: begin idx = 3'd5; valid = 1'b1; end
            8'b0001????: begin idx = 3'd4; valid = 1'b1; end
            8'b00001???: begin idx = 3'd3; valid = 1'b1; end
            8'b000001??: begin idx = 3'd2; valid = 1'b1; end
            8'b0000001?: begin idx = 3'd1; valid = 1'b1; end
            8'b00000001: begin idx = 3'd0; valid = 1'b1; end
        endcase
    end
endmodule
